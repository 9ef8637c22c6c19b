-- The engine's journal: one row per account (its owner and partition) and its events in sequence order.
-- The primary key (account_id, seq) is the single-owner guard: a second writer of an account collides on seq.
CREATE TABLE engine_accounts (
  account_id uuid PRIMARY KEY,
  user_id text NOT NULL,
  partition integer NOT NULL CHECK (partition >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX engine_accounts_partition ON engine_accounts (partition);

CREATE TABLE engine_events (
  account_id uuid NOT NULL REFERENCES engine_accounts (account_id),
  seq bigint NOT NULL CHECK (seq > 0),
  type text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, seq)
);
