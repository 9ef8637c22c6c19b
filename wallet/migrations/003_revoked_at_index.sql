-- Each wallet replica reads the revocations of the last moments every poll (wallet/reconciler.ts).
CREATE INDEX api_keys_revoked_at ON api_keys (revoked_at) WHERE revoked_at IS NOT NULL;
