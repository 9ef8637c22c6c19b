-- A standby follows the journal of the engines it may take over (docs/scale-out.md, "Standbys"): every
-- ENGINE_STANDBY_FOLLOW_MS it asks which accounts got events since its last look, by their `created_at`.
CREATE INDEX engine_events_created_at ON engine_events (created_at);
