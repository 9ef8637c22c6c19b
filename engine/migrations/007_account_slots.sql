-- The cap on accounts per user (ENGINE_MAX_ACCOUNTS_PER_USER, docs/engine.md "Limits"). A user's accounts are
-- spread over partitions, shards and engines, so the count is taken here, in the one database they share: an
-- account creation reserves a slot under a per-user advisory lock (engine/store/account-slots.ts) before its
-- shard opens the account. A reservation counts until its account is journaled (then the account row counts)
-- or until it is older than a minute (its creation failed, or the engine died in between).
CREATE INDEX engine_accounts_user ON engine_accounts (user_id);

CREATE TABLE engine_account_reservations (
  account_id uuid PRIMARY KEY,
  user_id text NOT NULL,
  reserved_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX engine_account_reservations_user ON engine_account_reservations (user_id, reserved_at);
