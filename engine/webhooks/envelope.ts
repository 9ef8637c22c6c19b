// The webhook envelope (docs/webhooks.md, "The envelope") and its Standard Webhooks signature: `webhook-id`,
// `webhook-timestamp` (unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256(secret, id.timestamp.body)>`,
// where the key is the base64 part of the key's `whsec_` secret, decoded.
import { createHmac } from "node:crypto";
import { toIso } from "../basics/time.js";
import type { OutboxEvent } from "./delivery-log.js";

/** The JSON body a key receives (and the catch-up endpoint lists): `data` is spliced in as stored. */
export function envelopeJson(event: OutboxEvent, apiKeyId: string): string {
  return (
    `{"id":${JSON.stringify(event.eventId)},"type":${JSON.stringify(event.type)},` +
    `"created_at":${JSON.stringify(toIso(event.createdAt))},"account_id":${JSON.stringify(event.accountId)},` +
    `"api_key_id":${JSON.stringify(apiKeyId)},"sequence":${event.sequence},"data":${event.data}}`
  );
}

export function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
}

/** The three Standard Webhooks headers for one delivery attempt. */
export function signedHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const signature = createHmac("sha256", secretBytes(secret))
    .update(`${id}.${timestampSeconds}.${body}`, "utf8")
    .digest("base64");
  return {
    "webhook-id": id,
    "webhook-timestamp": timestampSeconds.toString(),
    "webhook-signature": `v1,${signature}`,
  };
}
