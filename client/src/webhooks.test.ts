import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signedHeaders } from "../../engine/webhooks/envelope.js";
import { verifyWebhook, WebhookVerificationError } from "./webhooks.js";

const secret = `whsec_${randomBytes(24).toString("base64")}`;
const seconds = (offset: number): number => Math.floor(Date.now() / 1000) + offset;
const body = JSON.stringify({ id: "evt", type: "order.ack", data: {} });

describe("verifyWebhook", () => {
  it("accepts what the engine signs, as the Standard Webhooks library does", () => {
    const headers = signedHeaders(secret, "msg_1", seconds(0), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, body, headers)).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, Buffer.from(body), new Headers(headers))).toEqual(JSON.parse(body));
  });

  it("refuses a changed body, another secret, a stale timestamp and missing headers", () => {
    const headers = signedHeaders(secret, "msg_2", seconds(0), body);
    expect(() => verifyWebhook(secret, `${body} `, headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(`whsec_${randomBytes(24).toString("base64")}`, body, headers)).toThrow(
      WebhookVerificationError,
    );
    const stale = signedHeaders(secret, "msg_3", seconds(-600), body);
    expect(() => verifyWebhook(secret, body, stale)).toThrow("too far");
    expect(() => verifyWebhook(secret, body, {})).toThrow("missing webhook-id");
  });
});
