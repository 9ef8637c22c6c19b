// Key material: formats of the public key, secret and webhook secret, and the hashes stored at rest.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const KEY_PREFIX = "svc_ak_";
export const SECRET_PREFIX = "svc_sk_";
export const WEBHOOK_SECRET_PREFIX = "whsec_";

const KEY_PATTERN = /^svc_ak_[0-9a-f]{48}$/;
const SECRET_PATTERN = /^svc_sk_[0-9a-f]{48}$/;

export interface KeyMaterial {
  key: string;
  secret: string;
  keyPrefix: string;
  keyHash: Buffer;
  secretHash: Buffer;
}

export function sha256(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

export function generateKeyMaterial(): KeyMaterial {
  const key = KEY_PREFIX + randomBytes(24).toString("hex");
  const secret = SECRET_PREFIX + randomBytes(24).toString("hex");
  return {
    key,
    secret,
    keyPrefix: key.slice(0, KEY_PREFIX.length + 8),
    keyHash: sha256(key),
    secretHash: sha256(secret),
  };
}

export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(24).toString("base64");
}

export const looksLikeKey = (value: string): boolean => KEY_PATTERN.test(value);
export const looksLikeSecret = (value: string): boolean => SECRET_PATTERN.test(value);

/** Compares a presented secret with the stored hash in constant time (both are 32-byte digests). */
export function secretMatches(presented: string, storedHash: Buffer): boolean {
  const digest = sha256(presented);
  return digest.length === storedHash.length && timingSafeEqual(digest, storedHash);
}
