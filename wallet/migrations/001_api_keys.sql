-- API keys. Only hashes of the key and secret are stored; the webhook secret is encrypted with the master key.
CREATE TABLE api_key_owners (
  user_id text PRIMARY KEY
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  user_id text NOT NULL REFERENCES api_key_owners (user_id),
  key_hash bytea NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  secret_hash bytea NOT NULL,
  label text NOT NULL,
  permissions text[] NOT NULL,
  ip_whitelist text[] NOT NULL DEFAULT '{}',
  webhook_url text,
  webhook_secret_enc text,
  expires_at timestamptz,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);

CREATE INDEX api_keys_user_active ON api_keys (user_id) WHERE revoked_at IS NULL;
