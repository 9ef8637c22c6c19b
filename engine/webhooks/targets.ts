// What the webhook dispatcher needs of the wallet (engine/webhooks/wallet-directory.ts, revoked-keys.ts): the
// keys that receive webhooks, disabling a key's webhook, and the revocations it pushes.
/** A key that receives webhooks, as the wallet hands it to the dispatcher (secret in clear, never logged). */
export interface WebhookTarget {
  apiKeyId: string;
  userId: string;
  url: string;
  secret: string;
  /** Epoch ms from which the key is expired (the wallet's expires_at); null when it never expires. */
  expiresAt: number | null;
}

/** What the dispatcher needs of the wallet. */
export interface KeyDirectory {
  /** Active keys with an enabled webhook, of these users or with these ids. */
  targets(query: { userIds?: readonly string[]; keyIds?: readonly string[] }): Promise<WebhookTarget[]>;
  /** A receiver answered 410 Gone: disable the key's webhook. */
  disable(apiKeyId: string): Promise<void>;
}

/**
 * Revocations as the wallet pushes them (WatchKeys, the same lease protocol as the gateways' key caches): a
 * revocation completes only once this dispatcher acked it or its lease ran out, so an attempt that checks
 * `revoked` while `trusted` holds can never start after a revocation returned.
 */
export interface RevocationGuard {
  trusted(): boolean;
  revoked(apiKeyId: string): boolean;
}
