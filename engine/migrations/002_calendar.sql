-- The news calendar last set through market.v1 SetCalendar, so a restart keeps it (one row; absent until the
-- first SetCalendar, when the shipped calendar applies).
CREATE TABLE engine_calendar (
  id smallint PRIMARY KEY CHECK (id = 1),
  events jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
