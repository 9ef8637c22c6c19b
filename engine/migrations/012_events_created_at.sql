-- A standby follows the journal of the engines it may take over (docs/scale-out.md, "Standbys"): every
-- ENGINE_STANDBY_FOLLOW_MS it asks which accounts got events since its last look, by their `created_at`. A BRIN
-- index: the events are appended in about `created_at` order, so a look reads the last block ranges only, and
-- the appends pay next to nothing for it (a B-tree cost them about 5 % of their rate, docs/performance.md).
-- `autosummarize` has autovacuum summarize each range as it fills; the ranges not summarized yet (the newest)
-- are always read.
CREATE INDEX engine_events_created_at ON engine_events USING brin (created_at) WITH (autosummarize = on);
