// Webhooks end to end (docs/webhooks.md): a real HTTPS receiver on loopback with its own CA (given to the
// engine through WEBHOOK_CA_FILE) verifies every delivery with the `standardwebhooks` package. Prices are
// pushed through market.v1; orders and reads go through the gateway.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, request, revoke, v1, createKey, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";
import { makeTestCa, startReceiver, type Envelope, type Receiver, type TestCa } from "../harness/receiver.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";

interface Trader {
  key: CreatedKey;
  accountId: string;
  path: string;
  get(path: string): Promise<JsonResponse>;
  order(body: Record<string, unknown>): Promise<JsonResponse>;
}

const json = (body: Record<string, unknown>) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

async function trader(base: string, api: string, receiver: Receiver, user: string, path: string): Promise<Trader> {
  const key = await newKey(api, user, {
    label: "bot",
    permissions: ["TRADE", "MANAGE_ORDERS"],
    webhookUrl: `${receiver.origin}${path}`,
  });
  if (key.webhookSecret === undefined) throw new Error("no webhookSecret");
  receiver.secrets.set(path, key.webhookSecret);
  const opened = await v1(base, "/v1/account", key, json({ plan_id: PLAN_10K }));
  expect(opened.status).toBe(201);
  const accountId = String(opened.body.account_id);
  return {
    key,
    accountId,
    path,
    get: (suffix) => v1(base, `/v1/account/${accountId}${suffix}`, key),
    order: (body) => v1(base, "/v1/order", key, json({ account_id: accountId, ...body })),
  };
}

const envelopes = (receiver: Receiver, path: string): Envelope[] =>
  receiver
    .on(path)
    .filter((r) => r.answered >= 200 && r.answered < 300)
    .map((r) => {
      if (r.envelope === undefined) throw new Error(`unverified delivery to ${path}`);
      return r.envelope;
    });

/** Distinct events delivered successfully, by sequence (a retried event counts once). */
const bySequence = (list: Envelope[]): Envelope[] =>
  [...new Map(list.map((e) => [e.sequence, e] as const)).values()].sort((a, b) => a.sequence - b.sequence);

describe("webhooks end to end", () => {
  let ca: TestCa;
  let receiver: Receiver;
  let stack: TestStack;
  let market: Market;
  let base: string;
  let api: string;

  beforeAll(async () => {
    ca = makeTestCa();
    receiver = await startReceiver(ca);
    stack = await stackOn("postgres", {
      env: { PRICE_FEED: "push", WEBHOOK_ALLOW_PRIVATE: "true" },
      engineEnv: { WEBHOOK_CA_FILE: ca.caFile, WEBHOOK_RETRY_SCHEDULE_MS: "0,300,600", WEBHOOK_POLL_MS: "50" },
    });
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    base = gateway.v1;
    api = gateway.api;
    market = marketClient(stack.engineGrpc);
  });
  afterAll(async () => {
    market.close();
    await stack.stop();
    await receiver.close();
    ca.remove();
  });

  it("delivers every event type, signed, with contiguous sequences; the catch-up endpoint returns the same envelopes", async () => {
    const t = await trader(base, api, receiver, "wh-types", "/types");
    await market.push({ "BTC-USD": 100_000 });
    expect((await t.order({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.1" })).status).toBe(201);
    const resting = await t.order({
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: "0.01",
      limit_price: "80000",
    });
    const restingId = (resting.body.order as { order_id: string }).order_id;
    expect((await v1(base, `/v1/order/${restingId}`, t.key, { method: "DELETE" })).status).toBe(200);
    // Loss 6 + 0.1 × 2,440 = 250: the daily limit's 50% (info) breach.
    await market.push({ "BTC-USD": 97_560 });
    // Closed at 110,200: balance 9,994 + 1,020 − 6.612 = 11,007.388, flat: the profit target.
    await market.push({ "BTC-USD": 110_200 });
    const closed = await v1(base, "/v1/position/close", t.key, json({ account_id: t.accountId, symbol: "BTC-USD" }));
    expect(closed.status).toBe(201);

    const expected = [
      "order.ack",
      "order.fill",
      "order.ack",
      "order.cancel",
      "account.breach",
      "order.ack",
      "order.fill",
      "position.close",
      "account.passed",
    ];
    await receiver.until(() => envelopes(receiver, "/types").length >= expected.length);
    const got = receiver.on("/types");
    expect(got.every((r) => r.verified)).toBe(true);
    const delivered = bySequence(envelopes(receiver, "/types"));
    expect(delivered.map((e) => e.sequence)).toEqual(expected.map((_, i) => i + 1));
    expect(delivered.map((e) => e.type)).toEqual(expected);
    for (const e of delivered) {
      expect(e).toMatchObject({ account_id: t.accountId, api_key_id: t.key.id });
    }
    // Data are the REST records.
    const orders = await t.get("/orders");
    expect(orders.status).toBe(200);
    expect(delivered[3]?.data).toMatchObject({ order_id: restingId, status: "CANCELED", reason: "user" });
    const breaches = (await t.get("/breaches")).body.data as unknown[];
    expect(delivered[4]?.data).toEqual(breaches[0]);
    const history = (await t.get("/positions/history")).body.data as unknown[];
    expect(delivered[7]?.data).toEqual(history[0]);
    // Passed on the balance once flat, after the close (docs/risk.md, "Passing").
    expect(delivered[8]?.data).toMatchObject({ account_id: t.accountId, state: "PASSED", balance: 11007.388 });

    // Catch-up: the same envelopes, in order, paged.
    const all = await t.get("/events");
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ data: delivered, has_more: false });
    const page = await t.get("/events?after=3&limit=2");
    expect(page.body).toEqual({ data: delivered.slice(3, 5), has_more: true });
    expect((await t.get("/events?after=x")).body).toMatchObject({ error: "invalid_payload" });
    // Above 1000 reads as 1000, like the other lists.
    expect((await t.get("/events?limit=5000")).body).toEqual({ data: delivered, has_more: false });
    expect((await t.get("/events?limit=0")).status).toBe(400);
  });

  it("retries a receiver answering 500 with the same webhook-id; the delivery log shows both attempts; redeliver sends again", async () => {
    receiver.behave("/flaky", { statuses: [500, 200, 200] });
    const t = await trader(base, api, receiver, "wh-flaky", "/flaky");
    await market.push({ "BTC-USD": 100_000 });
    await t.order({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "80000" });
    await receiver.until(() => receiver.on("/flaky").length >= 2);
    const [first, second] = receiver.on("/flaky");
    expect(first?.answered).toBe(500);
    expect(second?.answered).toBe(200);
    expect(second?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
    expect(second?.verified).toBe(true);

    const logged = await request(`${api}/api/api-keys/${t.key.id}/deliveries`, {
      headers: { "x-user-id": "wh-flaky" },
    });
    expect(logged.status).toBe(200);
    const deliveries = logged.body.deliveries as Record<string, unknown>[];
    expect(deliveries).toHaveLength(1);
    const delivery = deliveries[0] ?? {};
    expect(delivery).toMatchObject({ eventType: "order.ack", status: "succeeded", attempts: 2, lastStatusCode: 200 });
    expect((delivery.attemptLog as { statusCode: number }[]).map((a) => a.statusCode)).toEqual([500, 200]);

    // Another user sees nothing of this key; an unknown delivery is 404.
    const foreign = await request(`${api}/api/api-keys/${t.key.id}/deliveries`, {
      headers: { "x-user-id": "someone" },
    });
    expect(foreign.status).toBe(404);
    const unknown = await request(
      `${api}/api/api-keys/${t.key.id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`,
      { method: "POST", headers: { "x-user-id": "wh-flaky" } },
    );
    expect(unknown.status).toBe(404);

    const again = await request(`${api}/api/api-keys/${t.key.id}/deliveries/${String(delivery.deliveryId)}/redeliver`, {
      method: "POST",
      headers: { "x-user-id": "wh-flaky" },
    });
    expect(again.status).toBe(202);
    await receiver.until(() => receiver.on("/flaky").length >= 3);
    expect(receiver.on("/flaky")[2]?.headers["webhook-id"]).toBe(first?.headers["webhook-id"]);
  });

  it("a slow receiver does not delay a fast one", async () => {
    receiver.behave("/slow", { delayMs: 3_000 });
    const slow = await trader(base, api, receiver, "wh-slow", "/slow");
    const fast = await trader(base, api, receiver, "wh-fast", "/fast");
    await market.push({ "BTC-USD": 100_000 });
    const limit = { symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "80000" };
    await slow.order(limit);
    await slow.order(limit);
    const started = Date.now();
    for (let i = 0; i < 3; i++) await fast.order(limit);
    await receiver.until(() => envelopes(receiver, "/fast").length >= 3);
    // The three fast deliveries landed while the slow receiver was still holding its first answer.
    expect(receiver.on("/slow")).toHaveLength(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    await receiver.until(() => envelopes(receiver, "/slow").length >= 2, 20_000);
  });

  it("a revoked key receives nothing more", async () => {
    const t = await trader(base, api, receiver, "wh-revoked", "/revoked");
    const other = await newKey(api, "wh-revoked", { label: "reader", permissions: ["TRADE"] });
    await market.push({ "BTC-USD": 100_000 });
    await t.order({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "80000" });
    await receiver.until(() => envelopes(receiver, "/revoked").length >= 1);
    expect((await revoke(api, "wh-revoked", t.key.id)).status).toBe(200);
    // The account trades on through another key of the user; the revoked key's URL hears nothing.
    const placed = await v1(
      base,
      "/v1/order",
      other,
      json({
        account_id: t.accountId,
        symbol: "BTC-USD",
        side: "BUY",
        kind: "LIMIT",
        quantity: "0.01",
        limit_price: "80000",
      }),
    );
    expect(placed.status).toBe(201);
    // A later event of another user proves the dispatcher went round since.
    const witness = await trader(base, api, receiver, "wh-witness", "/witness");
    await witness.order({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "80000" });
    await receiver.until(() => envelopes(receiver, "/witness").length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.on("/revoked")).toHaveLength(1);
    // Its events stay readable by the account's other keys.
    const events = await v1(base, `/v1/account/${t.accountId}/events`, other);
    expect((events.body.data as Envelope[]).map((e) => [e.sequence, e.type, e.api_key_id])).toEqual([
      [1, "order.ack", other.id],
      [2, "order.ack", other.id],
    ]);
  });

  it("an expired key receives nothing more: no attempt starts after its expiresAt, even within a running lane", async () => {
    // Each answer takes 1 s, so one lane's attempts span the key's expiry (pushed revocations never cover it).
    receiver.behave("/expiring", { delayMs: 1_000 });
    const expiresAtMs = Date.now() + 3_000;
    const hooked = await newKey(api, "wh-expiring", {
      label: "hook",
      permissions: ["READ_ONLY"],
      webhookUrl: `${receiver.origin}/expiring`,
      expiresAt: new Date(expiresAtMs).toISOString(),
    });
    if (hooked.webhookSecret === undefined) throw new Error("no webhookSecret");
    receiver.secrets.set("/expiring", hooked.webhookSecret);
    const trading = await newKey(api, "wh-expiring", { label: "bot", permissions: ["TRADE", "MANAGE_ORDERS"] });
    const opened = await v1(base, "/v1/account", trading, json({ plan_id: PLAN_10K }));
    expect(opened.status).toBe(201);
    await market.push({ "BTC-USD": 100_000 });
    for (let i = 0; i < 5; i++) {
      const placed = await v1(
        base,
        "/v1/order",
        trading,
        json({
          account_id: opened.body.account_id,
          symbol: "BTC-USD",
          side: "BUY",
          kind: "LIMIT",
          quantity: "0.01",
          limit_price: "80000",
        }),
      );
      expect(placed.status).toBe(201);
    }
    // Long enough for the five attempts of a lane that ignored the expiry to arrive.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAtMs + 4_000 - Date.now())));
    const got = receiver.on("/expiring");
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(5);
    // Each was answered 1 s after it arrived: every one arrived before the key expired.
    for (const r of got) expect(r.at - 1_000).toBeLessThan(expiresAtMs + 100);
  });

  it("exports the webhook metrics (before the engine restarts)", async () => {
    const text = await (await fetch(`${stack.engineAdmin}/metrics`)).text();
    expect(text).toMatch(/^webhook_deliveries_total\{outcome="succeeded",service="engine"\} [1-9]/m);
    expect(text).toMatch(/^webhook_deliveries_total\{outcome="retry",service="engine"\} [1-9]/m);
    expect(text).toMatch(/^webhook_attempt_duration_seconds_count\{[^}]*outcome="succeeded"[^}]*\} [1-9]/m);
    expect(text).toMatch(/^webhook_outbox_backlog\{service="engine"\} \d+/m);
    expect(text).toMatch(/^webhook_outbox_oldest_age_seconds\{service="engine"\} [\d.]+/m);
  });

  it("an event committed just before a kill -9 of the engine is delivered after the restart", async () => {
    const t = await trader(base, api, receiver, "wh-crash", "/crash");
    const limit = { symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "80000" };
    const orderIdOf = (reply: JsonResponse): string => (reply.body.order as { order_id: string }).order_id;
    await market.push({ "BTC-USD": 100_000 });
    const first = await t.order(limit);
    await receiver.until(() => envelopes(receiver, "/crash").length >= 1);
    // The first delivery recorded as succeeded before the kill: killed between the receiver's 200 and that
    // record, the engine would leave its lease to run out (80 s) and hold the key's lane that long, which is
    // not what this test is about.
    for (let settled = false; !settled;) {
      const log = await request(`${api}/api/api-keys/${t.key.id}/deliveries`, { headers: { "x-user-id": "wh-crash" } });
      settled = (log.body.deliveries as { status: string }[] | undefined)?.[0]?.status === "succeeded";
      if (!settled) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // An engine without its dispatcher: nothing it commits can be delivered before the kill.
    await stack.restartEngine({ signal: "SIGKILL", env: { WEBHOOKS_ENABLED: "false" } });
    await market.push({ "BTC-USD": 100_000 });
    const placed = await t.order(limit);
    expect(placed.status).toBe(201);
    await stack.restartEngine({ signal: "SIGKILL" });
    await receiver.until(() => envelopes(receiver, "/crash").length >= 2, 60_000);
    // After the restarts the account's numbering goes on where it was: no gap, no reuse.
    await market.push({ "BTC-USD": 100_000 });
    const third = await t.order(limit);
    expect(third.status).toBe(201);
    await receiver.until(() => envelopes(receiver, "/crash").length >= 3);
    expect(bySequence(envelopes(receiver, "/crash")).map((e) => [e.sequence, e.type, e.data.order_id])).toEqual([
      [1, "order.ack", orderIdOf(first)],
      [2, "order.ack", orderIdOf(placed)],
      [3, "order.ack", orderIdOf(third)],
    ]);
  });
});

describe("webhook targets must be public (WEBHOOK_ALLOW_PRIVATE unset)", () => {
  let ca: TestCa;
  let receiver: Receiver;
  let stack: TestStack;

  beforeAll(async () => {
    ca = makeTestCa();
    receiver = await startReceiver(ca);
    stack = await stackOn("pglite", {
      env: { PRICE_FEED: "push" },
      engineEnv: { WEBHOOK_CA_FILE: ca.caFile, WEBHOOK_RETRY_SCHEDULE_MS: "0", WEBHOOK_POLL_MS: "50" },
    });
  });
  afterAll(async () => {
    await stack.stop();
    await receiver.close();
    ca.remove();
  });

  it("refuses a private address literal at key creation and a name resolving to loopback at connect time", async () => {
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    const literal = await createKey(gateway.api, "ssrf", {
      label: "bot",
      permissions: ["TRADE"],
      webhookUrl: `https://127.0.0.1:${receiver.port}/hook`,
    });
    expect(literal.status).toBe(400);
    expect(literal.body).toMatchObject({ error: "invalid_payload", issues: [{ path: "webhookUrl" }] });
    const metadata = await createKey(gateway.api, "ssrf", {
      label: "bot",
      permissions: ["TRADE"],
      webhookUrl: "https://169.254.169.254/latest/meta-data",
    });
    expect(metadata.status).toBe(400);

    const t = await trader(
      gateway.v1,
      gateway.api,
      { ...receiver, origin: `https://localhost:${receiver.port}` },
      "ssrf",
      "/hook",
    );
    const market = marketClient(stack.engineGrpc);
    try {
      await market.push({ "BTC-USD": 100_000 });
    } finally {
      market.close();
    }
    await t.order({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "80000" });
    let deliveries: Record<string, unknown>[] = [];
    for (let i = 0; i < 200 && deliveries[0]?.status !== "failed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const logged = await request(`${gateway.api}/api/api-keys/${t.key.id}/deliveries`, {
        headers: { "x-user-id": "ssrf" },
      });
      deliveries = logged.body.deliveries as Record<string, unknown>[];
    }
    expect(deliveries[0]).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: null });
    // A generic refusal: no address, no resolver error (the cause is in the engine's log only).
    expect(deliveries[0]?.lastError).toBe("could not connect: the host has no public address");
    expect(JSON.stringify(deliveries)).not.toMatch(/127\.0\.0\.1|::1|ENOTFOUND|resolves to/);
    expect(receiver.received).toHaveLength(0);
  });
});
