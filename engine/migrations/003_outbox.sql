-- Webhooks (docs/webhooks.md). The outbox: every webhook event, written in the same statement as the journal
-- events that caused it, numbered per account (sequence from 1, by one). Rows are never updated except the
-- fan-out flag: they are also what `GET /v1/account/:id/events` replays.
CREATE TABLE engine_outbox (
  account_id uuid NOT NULL REFERENCES engine_accounts (account_id),
  sequence bigint NOT NULL CHECK (sequence > 0),
  event_id uuid NOT NULL UNIQUE,
  type text NOT NULL,
  user_id text NOT NULL,
  created_at timestamptz NOT NULL,
  data json NOT NULL,
  -- Deliveries were created for every webhook target of the user (or there was none).
  fanned_out boolean NOT NULL DEFAULT false,
  PRIMARY KEY (account_id, sequence)
);

CREATE INDEX engine_outbox_unfanned ON engine_outbox (created_at) WHERE NOT fanned_out;

-- One event to one key's webhook URL: its state and schedule. The secret is never stored here (the wallet
-- holds it sealed and hands it to the dispatcher per attempt).
CREATE TABLE webhook_deliveries (
  delivery_id uuid PRIMARY KEY,
  event_id uuid NOT NULL REFERENCES engine_outbox (event_id),
  api_key_id uuid NOT NULL,
  user_id text NOT NULL,
  url text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'disabled', 'canceled')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  -- A dispatcher working on the delivery owns it until then (several engines may dispatch).
  lease_until timestamptz,
  last_status_code integer,
  last_error text,
  last_latency_ms integer,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (event_id, api_key_id)
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_key ON webhook_deliveries (api_key_id, created_at DESC, delivery_id);

-- Every attempt, for the delivery log.
CREATE TABLE webhook_attempts (
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (delivery_id),
  attempt integer NOT NULL CHECK (attempt > 0),
  started_at timestamptz NOT NULL,
  status_code integer,
  error text,
  latency_ms integer NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);
