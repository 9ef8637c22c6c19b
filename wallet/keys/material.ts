// Key material: formats of the public key, secret and webhook secret, and the hashes stored at rest.
// A namespace import for `crypto.hash`: a named import would fail to link on Node 20 releases before 20.12.
import * as crypto from "node:crypto";
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

type TextDigest = (algorithm: string, data: string, outputEncoding: crypto.BinaryToTextEncoding) => string;

/**
 * `crypto.hash` (Node >= 20.12) digests in one call without a Hash object, and its string output allocates no
 * Buffer: about 5x cheaper than createHash for a key. Older Node 20 releases fall back to createHash.
 */
const oneShot: TextDigest | undefined = typeof crypto.hash === "function" ? crypto.hash : undefined;

function textDigest(value: string, encoding: crypto.BinaryToTextEncoding): string {
  return oneShot !== undefined
    ? oneShot("sha256", value, encoding)
    : createHash("sha256").update(value, "utf8").digest(encoding);
}

/** SHA-256 of a string, base64-encoded (the key index's id for a public key; same bytes as `sha256`). */
export const sha256Base64 = (value: string): string => textDigest(value, "base64");

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

/** Holds one digest at a time (the compare is synchronous), so `secretMatches` allocates no Buffer. */
const SCRATCH = Buffer.alloc(32);

/** Compares a presented secret with the stored hash in constant time (both are 32-byte digests). */
export function secretMatches(presented: string, storedHash: Buffer): boolean {
  if (storedHash.length !== SCRATCH.length) return false;
  const written = SCRATCH.write(textDigest(presented, "binary"), "latin1");
  const matches = written === SCRATCH.length && timingSafeEqual(SCRATCH, storedHash);
  SCRATCH.fill(0);
  return matches;
}
