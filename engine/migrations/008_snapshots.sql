-- Account snapshots (docs/engine.md, "Snapshots"): the latest state of an account as of a journal seq, written
-- by its shard every ENGINE_SNAPSHOT_EVERY events, so a rebuild loads it and replays only the events after it.
-- One row per account; a write only ever moves it forward (a higher seq). `at` is epoch ms no earlier than any
-- event up to `seq` (the shard's clock never goes back across a restart). The journal stays whole: a snapshot
-- is a cache of it, and deleting every row only makes the next rebuild replay everything.
CREATE TABLE engine_snapshots (
  account_id uuid PRIMARY KEY REFERENCES engine_accounts (account_id),
  seq bigint NOT NULL CHECK (seq > 0),
  outbox bigint NOT NULL CHECK (outbox >= 0),
  at double precision NOT NULL,
  payload json NOT NULL,
  taken_at timestamptz NOT NULL DEFAULT now()
);
