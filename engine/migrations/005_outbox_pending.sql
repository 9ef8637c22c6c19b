-- Webhooks (docs/webhooks.md): the events not fanned out yet move from a flag on the outbox to a queue of their
-- own, so outbox rows are only ever inserted (and pruned). Setting `fanned_out` could never be a HOT update (the
-- column is in a partial index's predicate): every event cost a second full version of its row, with its JSON,
-- and new entries in each outbox index, for vacuum to clean up later, even when nobody has a webhook.
--
-- The journal append inserts one row here per outbox row, in the same statement; the dispatcher reads the oldest
-- (LIMIT n) and deletes the rows it fanned out in the statement that creates their deliveries. The primary key is
-- the table's only index and serves both. No foreign key to engine_outbox: it would cost a lookup per append
-- and per prune; the journal writes both rows together and prune never deletes an event that is still here.
CREATE TABLE engine_outbox_pending (
  created_at timestamptz NOT NULL,
  event_id uuid NOT NULL,
  user_id text NOT NULL,
  PRIMARY KEY (created_at, event_id)
);

INSERT INTO engine_outbox_pending (created_at, event_id, user_id)
SELECT created_at, event_id, user_id FROM engine_outbox WHERE NOT fanned_out;

DROP INDEX engine_outbox_unfanned;
ALTER TABLE engine_outbox DROP COLUMN fanned_out;
