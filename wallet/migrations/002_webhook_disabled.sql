-- A receiver answered 410 Gone: the key's webhook is disabled for good (docs/webhooks.md, "Retries").
ALTER TABLE api_keys ADD COLUMN webhook_disabled_at timestamptz;
