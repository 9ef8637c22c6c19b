// Verifies a webhook the service sent (Standard Webhooks, as engine/webhooks/envelope.ts signs it):
// `webhook-signature: v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")>`, the key being
// the base64 part of the key's `whsec_` secret, decoded; the timestamp within `toleranceSeconds` of now.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { WebhookEnvelope } from "./types.js";

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

export interface VerifyOptions {
  /** Largest distance between `webhook-timestamp` and now (default 300 s). */
  toleranceSeconds?: number;
  /** Now, in unix seconds (tests). */
  nowSeconds?: number;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text === null || text === "") throw new WebhookVerificationError(`missing ${name}`);
  return text;
}

/** The envelope of a genuine webhook; throws `WebhookVerificationError` for anything else. */
export function verifyWebhook(
  secret: string,
  body: string | Buffer,
  headers: HeaderSource,
  options: VerifyOptions = {},
): WebhookEnvelope {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError("bad webhook-timestamp");
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError("webhook-timestamp too far from now");
  }
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
  const text = typeof body === "string" ? body : body.toString("utf8");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${text}`).digest();
  const matches = signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",", 2);
    if (version !== "v1" || signature === undefined) return false;
    const given = Buffer.from(signature, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError("no matching signature");
  return JSON.parse(text) as WebhookEnvelope;
}
