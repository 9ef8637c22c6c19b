// The dispatcher and its SQL against a real PostgreSQL, with a scripted receiver and a scripted wallet:
// fan-out (oldest first, off the queue, two dispatchers racing), signatures, retries on the schedule,
// Retry-After, 410 Gone, revoked keys, running out of attempts, a slow receiver beside a fast one, two
// dispatchers never attempting one delivery twice.
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { Webhook } from "standardwebhooks";
import { beforeEach, describe, expect, it } from "vitest";
import { silentLog } from "../shard/runtime.testing.js";
import { Journal, type OutboxRow } from "../store/journal.js";
import { migratedEngineDatabase } from "../store/database.testing.js";
import { WebhookDispatcher, type DispatcherOptions } from "./dispatcher.js";
import { DEFAULT_SCHEDULE_MS, jittered, nextStep, type Outcome } from "./retry.js";
import { CLAIM_LOCK, WebhookStore } from "./store.js";
import type { KeyDirectory, WebhookTarget } from "./targets.js";
import type { SendResult, WebhookRequest } from "./transport.js";

const db = migratedEngineDatabase();
let store: WebhookStore;

beforeEach(() => {
  store = new WebhookStore(db.pool);
});

/** Now, to the second (standardwebhooks refuses timestamps far from its own clock). */
const T0 = Math.floor(Date.now() / 1000) * 1000;
const secret = (): string => `whsec_${Buffer.from(randomUUID()).toString("base64")}`;

/**
 * One account of `userId` with `count` outbox events (sequence from..from+count-1, at `at` + i * `spacing`: 0 for
 * events decided in the same millisecond, as a termination's are), committed like a shard does.
 */
async function account(userId: string, count: number, from = 1, at = T0, spacing = 1): Promise<string> {
  const accountId = randomUUID();
  const rows: OutboxRow[] = Array.from({ length: count }, (_, i) => ({
    accountId,
    sequence: from + i,
    eventId: randomUUID(),
    type: "order.ack",
    userId,
    at: at + i * spacing,
    data: JSON.stringify({ order_id: `o${from + i}`, n: from + i }),
  }));
  const events = Array.from({ length: count }, (_, i) => ({
    accountId,
    seq: i + 1,
    type: "Noted",
    payload: "{}",
  }));
  await new Journal(db.pool).append([{ accountId, userId, partition: 0 }], events, rows);
  return accountId;
}

class Wallet implements KeyDirectory {
  readonly keys = new Map<string, WebhookTarget>();
  readonly disabled: string[] = [];
  add(userId: string, url: string, expiresAt: number | null = null): WebhookTarget {
    const target = { apiKeyId: randomUUID(), userId, url, secret: secret(), expiresAt };
    this.keys.set(target.apiKeyId, target);
    return target;
  }
  targets(query: { userIds?: readonly string[]; keyIds?: readonly string[] }): Promise<WebhookTarget[]> {
    return Promise.resolve(
      [...this.keys.values()].filter(
        (t) => (query.userIds ?? []).includes(t.userId) || (query.keyIds ?? []).includes(t.apiKeyId),
      ),
    );
  }
  disable(apiKeyId: string): Promise<void> {
    this.disabled.push(apiKeyId);
    this.keys.delete(apiKeyId);
    return Promise.resolve();
  }
}

interface Sent extends WebhookRequest {
  at: number;
}

/** The envelopes' `sequence`s, in the order they were sent. */
const sequences = (sent: readonly Sent[]): number[] =>
  sent.map((s) => (JSON.parse(s.body) as { sequence: number }).sequence);

/** Answers per URL: a list of results in order (the last repeats), or a function. */
class Receivers {
  readonly sent: Sent[] = [];
  private readonly scripts = new Map<string, (n: number) => SendResult | Promise<SendResult>>();
  constructor(private readonly clock: { now: number }) {}
  script(url: string, answer: (n: number) => SendResult | Promise<SendResult>): void {
    this.scripts.set(url, answer);
  }
  statuses(url: string, ...statuses: number[]): void {
    this.script(url, (n) => ({
      ok: true,
      status: statuses[Math.min(n, statuses.length - 1)] ?? 200,
      retryAfterMs: null,
      latencyMs: 3,
    }));
  }
  to(url: string): Sent[] {
    return this.sent.filter((s) => s.url === url);
  }
  send = (request: WebhookRequest): Promise<SendResult> => {
    const n = this.to(request.url).length;
    this.sent.push({ ...request, at: this.clock.now });
    const script = this.scripts.get(request.url);
    return Promise.resolve(
      script === undefined ? { ok: true, status: 200, retryAfterMs: null, latencyMs: 2 } : script(n),
    );
  };
}

function setup(
  schedule: number[] = [0, 1_000, 5_000],
  retentionMs?: number,
  extra: Partial<Omit<DispatcherOptions, "store" | "keys" | "send">> = {},
) {
  const clock = { now: T0 };
  const wallet = new Wallet();
  const receivers = new Receivers(clock);
  const outcomes: Outcome[] = [];
  const dispatcher = new WebhookDispatcher({
    store,
    keys: wallet,
    send: receivers.send,
    schedule,
    now: () => clock.now,
    random: () => 0.5,
    log: silentLog,
    ...(retentionMs === undefined ? {} : { retentionMs }),
    ...extra,
    metrics: {
      delivered: (outcome, count = 1) => {
        for (let i = 0; i < count; i++) outcomes.push(outcome);
      },
      attempt: () => undefined,
    },
  });
  const round = async (): Promise<void> => {
    await dispatcher.tick();
    await dispatcher.idle();
  };
  return { clock, wallet, receivers, dispatcher, round, outcomes };
}

/** A receiver that answers 200 only when the test releases it (its release is pushed on `hung`). */
function hangUntilReleased(hung: (() => void)[]): Promise<SendResult> {
  return new Promise<SendResult>((resolve) => {
    hung.push(() => {
      resolve({ ok: true, status: 200, retryAfterMs: null, latencyMs: 5 });
    });
  });
}

/** Releases the hanging receivers, round after round, until none is left waiting. */
async function releaseAll(hung: (() => void)[], dispatcher: WebhookDispatcher): Promise<void> {
  while (hung.length > 0) {
    for (const release of hung.splice(0)) release();
    await dispatcher.idle();
    await dispatcher.tick();
    for (let i = 0; i < 20 && hung.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  }
}

/** Fans the queued events out to one new key of `userId` (no wallet, no dispatcher), at T0; its id. */
async function fanOutToNewKey(userId: string): Promise<string> {
  const key = randomUUID();
  const events = await store.unfanned(10);
  await store.fanOut(
    events,
    events.map((e) => ({ deliveryId: randomUUID(), eventId: e.eventId, apiKeyId: key, userId, url: "u" })),
    T0,
  );
  return key;
}

const statusOf = async (): Promise<Record<string, number>> => {
  const rows = await db.pool.query<{ status: string; n: string }>(
    "SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status",
  );
  return Object.fromEntries(rows.rows.map((r) => [r.status, Number(r.n)]));
};

describe("fan-out and delivery", () => {
  it("delivers every event once to every webhook key of the user, signed, in sequence order per account", async () => {
    const { wallet, receivers, round } = setup();
    const a = wallet.add("u1", "https://a.example/hook");
    const b = wallet.add("u1", "https://b.example/hook");
    wallet.add("u2", "https://other.example/hook");
    const accountId = await account("u1", 3);

    await round();
    for (const target of [a, b]) {
      const got = receivers.to(target.url);
      expect(got).toHaveLength(3);
      const envelopes = got.map((s) => new Webhook(target.secret).verify(s.body, s.headers) as Record<string, unknown>);
      expect(envelopes.map((e) => e.sequence)).toEqual([1, 2, 3]);
      expect(envelopes[0]).toMatchObject({
        type: "order.ack",
        account_id: accountId,
        api_key_id: target.apiKeyId,
        created_at: new Date(T0).toISOString(),
        data: { order_id: "o1", n: 1 },
      });
      expect(got.map((s) => s.headers["webhook-id"])).toEqual(envelopes.map((e) => e.id));
      expect(got[0]?.headers["webhook-timestamp"]).toBe(String(T0 / 1000));
    }
    expect(receivers.to("https://other.example/hook")).toHaveLength(0);
    expect(await statusOf()).toEqual({ succeeded: 6 });
    // Nothing is left to do.
    await round();
    expect(receivers.sent).toHaveLength(6);
    expect(await store.backlog(T0)).toEqual({ size: 0, oldestMs: 0 });
  });

  it("sends events decided in the same millisecond in sequence order (a termination's), however fan-out batches them", async () => {
    for (const fanOutLimit of [500, 4]) {
      const { wallet, receivers, round } = setup([0, 1_000], undefined, { fanOutLimit });
      const a = wallet.add(`same-${fanOutLimit}`, `https://a${fanOutLimit}.example/hook`);
      // Two accounts of the user, each with 12 events at the very same millisecond.
      const first = await account(a.userId, 12, 1, T0, 0);
      const second = await account(a.userId, 12, 1, T0, 0);
      for (let i = 0; i < 6; i++) await round();
      const got = receivers.to(a.url).map((s) => JSON.parse(s.body) as { account_id: string; sequence: number });
      expect(got).toHaveLength(24);
      for (const accountId of [first, second]) {
        expect(got.filter((e) => e.account_id === accountId).map((e) => e.sequence)).toEqual(
          Array.from({ length: 12 }, (_, i) => i + 1),
        );
      }
    }
  });

  it("a failed first attempt waits for its retry while the key's next events go on", async () => {
    const { clock, wallet, receivers, round } = setup([0, 1_000]);
    const a = wallet.add("u1", "https://a.example/hook");
    receivers.statuses(a.url, 500, 200);
    await account("u1", 3, 1, T0, 0);
    // The failure ends the lane; the next poll takes the key's next events.
    await round();
    expect(sequences(receivers.to(a.url))).toEqual([1]);
    await round();
    expect(sequences(receivers.to(a.url))).toEqual([1, 2, 3]);
    clock.now += 1_100;
    await round();
    expect(sequences(receivers.to(a.url))).toEqual([1, 2, 3, 1]);
    expect(await statusOf()).toEqual({ succeeded: 3 });
  });

  it("marks events of users without webhook keys fanned out, with no delivery", async () => {
    const { receivers, round } = setup();
    await account("nobody", 2);
    await round();
    expect(receivers.sent).toHaveLength(0);
    expect((await store.unfanned(10)).length).toBe(0);
  });

  it("retries a 500 on the schedule with the same webhook-id, and records every attempt", async () => {
    const { clock, wallet, receivers, round } = setup([0, 1_000, 5_000]);
    const a = wallet.add("u1", "https://a.example/hook");
    receivers.statuses(a.url, 500, 200);
    await account("u1", 1);

    await round();
    expect(receivers.to(a.url)).toHaveLength(1);
    clock.now += 999; // jitter 0.5 → exactly the scheduled delay after the attempt ended (3 ms latency)
    await round();
    expect(receivers.to(a.url)).toHaveLength(1);
    clock.now += 4;
    await round();
    const got = receivers.to(a.url);
    expect(got).toHaveLength(2);
    expect(got[1]?.headers["webhook-id"]).toBe(got[0]?.headers["webhook-id"]);
    expect(got[1]?.headers["webhook-signature"]).toBeDefined();

    const log = await store.listDeliveries("u1", a.apiKeyId, 10, undefined);
    expect(log.deliveries[0]).toMatchObject({
      status: "succeeded",
      attempts: 2,
      lastStatusCode: 200,
      nextAttemptAt: null,
    });
    expect(log.deliveries[0]?.attemptLog.map((x) => [x.attempt, x.statusCode, x.error])).toEqual([
      [1, 500, "HTTP 500"],
      [2, 200, null],
    ]);
  });

  it("honours Retry-After on 429 and 503 when it is longer than the schedule", async () => {
    const { clock, wallet, receivers, round } = setup([0, 1_000, 5_000]);
    const a = wallet.add("u1", "https://a.example/hook");
    receivers.script(a.url, (n) =>
      n === 0
        ? { ok: true, status: 429, retryAfterMs: 30_000, latencyMs: 0 }
        : { ok: true, status: 200, retryAfterMs: null, latencyMs: 0 },
    );
    await account("u1", 1);
    await round();
    clock.now += 5_000;
    await round();
    expect(receivers.to(a.url)).toHaveLength(1);
    clock.now += 25_000;
    await round();
    expect(receivers.to(a.url)).toHaveLength(2);
  });

  it("records the owner's text in the delivery log and the cause only in the operator's log", async () => {
    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    const log = Object.assign(Object.create(silentLog) as typeof silentLog, {
      warn: (obj: Record<string, unknown>, msg: string) => {
        lines.push({ obj, msg });
      },
    });
    const { wallet, receivers, round } = setup([0], undefined, { log });
    const a = wallet.add("u1", "https://internal.example/hook");
    receivers.script(a.url, () => ({
      ok: false,
      error: "could not connect: the host has no public address",
      detail: "internal.example resolves to non-public address 10.1.2.3",
      latencyMs: 1,
    }));
    await account("u1", 1);
    await round();
    const failed = (await store.listDeliveries("u1", a.apiKeyId, 10, undefined)).deliveries[0];
    expect(failed).toMatchObject({ status: "failed", lastError: "could not connect: the host has no public address" });
    expect(JSON.stringify(failed)).not.toContain("10.1.2.3");
    const logged = lines.find((line) => line.msg === "webhook attempt failed");
    expect(logged?.obj).toMatchObject({
      apiKeyId: a.apiKeyId,
      detail: "internal.example resolves to non-public address 10.1.2.3",
    });
    expect(JSON.stringify(lines)).not.toContain(a.secret);
  });

  it("marks a delivery failed when its attempts run out, and redelivery tries once more", async () => {
    const { clock, wallet, receivers, round } = setup([0, 10]);
    const a = wallet.add("u1", "https://a.example/hook");
    receivers.script(a.url, () => ({ ok: false, error: "connect ECONNREFUSED", latencyMs: 1 }));
    await account("u1", 1);
    await round();
    clock.now += 100;
    await round();
    clock.now += 100;
    await round();
    expect(receivers.to(a.url)).toHaveLength(2);
    const failed = (await store.listDeliveries("u1", a.apiKeyId, 10, undefined)).deliveries[0];
    expect(failed).toMatchObject({
      status: "failed",
      attempts: 2,
      lastError: "connect ECONNREFUSED",
      lastStatusCode: null,
    });

    receivers.statuses(a.url, 200);
    const again = await store.redeliver("u1", a.apiKeyId, failed?.deliveryId ?? "", clock.now);
    expect(again).toMatchObject({ status: "pending", attempts: 2 });
    // Another user cannot redeliver it.
    expect(await store.redeliver("u2", a.apiKeyId, failed?.deliveryId ?? "", clock.now)).toBeUndefined();
    await round();
    expect(receivers.to(a.url)).toHaveLength(3);
    expect((await store.listDeliveries("u1", a.apiKeyId, 10, undefined)).deliveries[0]).toMatchObject({
      status: "succeeded",
      attempts: 3,
    });
  });

  it("disables the key's webhook on 410 Gone: no more attempts for any of its deliveries", async () => {
    const { wallet, receivers, round, outcomes } = setup();
    const a = wallet.add("u1", "https://a.example/hook");
    const b = wallet.add("u1", "https://b.example/hook");
    receivers.statuses(a.url, 410);
    await account("u1", 3);
    await round();
    expect(receivers.to(a.url)).toHaveLength(1);
    expect(wallet.disabled).toEqual([a.apiKeyId]);
    expect(receivers.to(b.url)).toHaveLength(3);
    expect(await statusOf()).toEqual({ succeeded: 3, disabled: 3 });
    expect(outcomes.filter((o) => o === "disabled")).toHaveLength(3);
    await account("u1", 1);
    await round();
    expect(receivers.to(a.url)).toHaveLength(1);
  });

  it("sends nothing to a key the wallet no longer lists (revoked or expired): its deliveries are canceled", async () => {
    const { clock, wallet, receivers, round } = setup([0, 1_000]);
    const a = wallet.add("u1", "https://a.example/hook");
    receivers.statuses(a.url, 500);
    await account("u1", 2);
    await round();
    await round();
    expect(receivers.to(a.url)).toHaveLength(2);
    wallet.keys.delete(a.apiKeyId); // revoked
    clock.now += 10_000;
    await round();
    expect(receivers.to(a.url)).toHaveLength(2);
    expect(await statusOf()).toEqual({ canceled: 2 });
  });
});

describe("revocation while a lane runs", () => {
  it("asks the wallet before each attempt when no revocation stream vouches for the key", async () => {
    const { wallet, receivers, round } = setup();
    const a = wallet.add("u1", "https://a.example/hook");
    // Revoked by the time the first attempt has been answered.
    receivers.script(a.url, () => {
      wallet.keys.delete(a.apiKeyId);
      return { ok: true, status: 200, retryAfterMs: null, latencyMs: 1 };
    });
    await account("u1", 3);
    await round();
    expect(receivers.to(a.url)).toHaveLength(1);
    expect(await statusOf()).toEqual({ succeeded: 1, canceled: 2 });
  });

  it("trusts the pushed revocations while their lease holds, and stops at a pushed revocation", async () => {
    const clock = { now: T0 };
    const wallet = new Wallet();
    const receivers = new Receivers(clock);
    const a = wallet.add("u1", "https://a.example/hook");
    const revoked = new Set<string>();
    let asked = 0;
    const counting: KeyDirectory = {
      targets: (query) => {
        asked++;
        return wallet.targets(query);
      },
      disable: (id) => wallet.disable(id),
    };
    receivers.script(a.url, (n) => {
      if (n === 1) revoked.add(a.apiKeyId); // pushed by the wallet while the second attempt was in flight
      return { ok: true, status: 200, retryAfterMs: null, latencyMs: 1 };
    });
    const dispatcher = new WebhookDispatcher({
      store,
      keys: counting,
      guard: { trusted: () => true, revoked: (id) => revoked.has(id) },
      send: receivers.send,
      now: () => clock.now,
      log: silentLog,
    });
    await account("u1", 4);
    await dispatcher.tick();
    await dispatcher.idle();
    expect(receivers.to(a.url)).toHaveLength(2);
    expect(await statusOf()).toEqual({ succeeded: 2, canceled: 2 });
    // Fan-out and claim asked; the attempts did not.
    expect(asked).toBe(2);
  });
});

describe("expiry while a lane runs", () => {
  it("checks the key's expiry against the clock before every attempt, even while pushed revocations vouch for it", async () => {
    const clock = { now: T0 };
    const wallet = new Wallet();
    const receivers = new Receivers(clock);
    const a = wallet.add("u1", "https://a.example/hook", T0 + 5_000);
    // Each answer takes 4 s: the third attempt would start at +8 s, after the key expired at +5 s.
    receivers.script(a.url, () => {
      clock.now += 4_000;
      return { ok: true, status: 200, retryAfterMs: null, latencyMs: 4_000 };
    });
    const dispatcher = new WebhookDispatcher({
      store,
      keys: wallet,
      guard: { trusted: () => true, revoked: () => false }, // expiry is never pushed
      send: receivers.send,
      now: () => clock.now,
      random: () => 0.5,
      log: silentLog,
    });
    await account("u1", 5);
    await dispatcher.tick();
    await dispatcher.idle();
    expect(receivers.to(a.url).map((s) => s.at - T0)).toEqual([0, 4_000]);
    expect(await statusOf()).toEqual({ succeeded: 2, canceled: 3 });
  });

  it("sends nothing from the very millisecond of expiresAt", async () => {
    const { clock, wallet, receivers, round } = setup();
    const a = wallet.add("u1", "https://a.example/hook", T0 + 1);
    await account("u1", 1);
    clock.now = T0 + 1;
    await round();
    expect(receivers.to(a.url)).toHaveLength(0);
    expect(await statusOf()).toEqual({ canceled: 1 });
  });
});

describe("isolation", () => {
  it("a receiver that never answers does not delay another key's deliveries", async () => {
    const { wallet, receivers, dispatcher } = setup();
    const slow = wallet.add("u1", "https://slow.example/hook");
    const fast = wallet.add("u2", "https://fast.example/hook");
    let release = (): void => undefined;
    const hanging = new Promise<SendResult>((resolve) => {
      release = () => {
        resolve({ ok: true, status: 200, retryAfterMs: null, latencyMs: 10_000 });
      };
    });
    receivers.script(slow.url, () => hanging);
    await account("u1", 2);
    await account("u2", 3);

    await dispatcher.tick();
    await dispatcher.tick();
    await dispatcher.tick();
    // Let the fast lane finish (its sends resolve at once), while the slow one is still stuck.
    for (let i = 0; i < 50 && receivers.to(fast.url).length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(receivers.to(fast.url)).toHaveLength(3);
    expect(receivers.to(slow.url)).toHaveLength(1);
    release();
    await dispatcher.idle();
    await dispatcher.tick();
    await dispatcher.idle();
    expect(receivers.to(slow.url)).toHaveLength(2);
  });

  it("receivers that never answer hold at most half of the lanes, however many: a healthy key is served at once", async () => {
    const { wallet, receivers, dispatcher } = setup([0, 1_000], undefined, { maxLanes: 4 });
    const hung: (() => void)[] = [];
    // As many dead receivers as lanes: uncapped, they would hold every lane.
    const dead = Array.from({ length: 4 }, (_, i) => wallet.add(`dead-${i}`, `https://dead-${i}.example/hook`));
    for (const target of dead) {
      receivers.script(target.url, (n) =>
        n === 0
          ? // The first attempt fails fast (the key becomes suspect); every later one hangs until released.
            { ok: false, error: "connection refused", latencyMs: 1 }
          : new Promise<SendResult>((resolve) => {
              hung.push(() => {
                resolve({ ok: false, error: "timeout", latencyMs: 10_000 });
              });
            }),
      );
      await account(target.userId, 3);
    }
    await dispatcher.tick();
    await dispatcher.idle();
    expect(dead.every((target) => receivers.to(target.url).length === 1)).toBe(true);

    // Every dead key is suspect and has due deliveries: two of them take the two suspect lanes and hang there.
    await dispatcher.tick();
    await dispatcher.tick();
    await dispatcher.tick();
    expect(hung).toHaveLength(2);
    const healthy = wallet.add("alive", "https://alive.example/hook");
    await account("alive", 2);
    for (let i = 0; i < 3 && receivers.to(healthy.url).length < 2; i++) {
      await dispatcher.tick();
      for (let j = 0; j < 50 && receivers.to(healthy.url).length < 2; j++) await new Promise((r) => setTimeout(r, 5));
    }
    expect(sequences(receivers.to(healthy.url))).toEqual([1, 2]);
    expect(hung).toHaveLength(2);
    for (const release of hung) release();
    await dispatcher.idle();
  });

  it("receivers that fail at once, more of them than a claim takes, never crowd out a healthy key", async () => {
    const { clock, wallet, receivers, dispatcher } = setup([0, 60_000], undefined, { maxLanes: 4, claimLimit: 10 });
    const dead = Array.from({ length: 4 }, (_, i) => wallet.add(`refused-${i}`, `https://refused-${i}.example/hook`));
    for (const target of dead) {
      receivers.script(target.url, () => ({ ok: false, error: "connection refused", latencyMs: 1 }));
      await account(target.userId, 8);
    }
    const round = async (): Promise<void> => {
      await dispatcher.tick();
      await dispatcher.idle();
    };
    await round();
    await round();
    await round();
    // Every dead key is suspect now, with deliveries still due since T0 (older than anything new) that fail at
    // once; a claim ordered by due time alone would take 10 of theirs and nothing else.
    clock.now += 500;
    const healthy = wallet.add("served", "https://served.example/hook");
    await account("served", 2, 1, clock.now);
    await round();
    await round();
    expect(sequences(receivers.to(healthy.url))).toEqual([1, 2]);
    // The dead keys still get their tries, in the suspect half of the lanes.
    expect(dead.every((target) => receivers.to(target.url).length > 0)).toBe(true);
  });

  it("keeps lanes for keys whose last attempt failed while healthy keys would take them all", async () => {
    const { wallet, receivers, dispatcher } = setup([0, 60_000], undefined, { maxLanes: 4 });
    const flaky = wallet.add("flaky", "https://flaky.example/hook");
    receivers.statuses(flaky.url, 503, 200);
    await account("flaky", 3);
    await dispatcher.tick();
    await dispatcher.idle();
    expect(receivers.to(flaky.url)).toHaveLength(1);
    // Six healthy keys whose receivers hang: more than the lanes.
    const hung: (() => void)[] = [];
    for (let i = 0; i < 6; i++) {
      const target = wallet.add(`busy-${i}`, `https://busy-${i}.example/hook`);
      receivers.script(target.url, () => hangUntilReleased(hung));
      await account(target.userId, 1);
    }
    await dispatcher.tick();
    for (let i = 0; i < 100 && receivers.to(flaky.url).length < 3; i++) await new Promise((r) => setTimeout(r, 5));
    expect(sequences(receivers.to(flaky.url))).toEqual([1, 2, 3]);
    await releaseAll(hung, dispatcher);
    await dispatcher.idle();
  });

  it("never runs more lanes than it has, whatever a claim returns", async () => {
    const { wallet, receivers, dispatcher } = setup([0, 1_000], undefined, { maxLanes: 2, perKey: 5 });
    const hung: (() => void)[] = [];
    const keys = Array.from({ length: 6 }, (_, i) => wallet.add(`one-${i}`, `https://one-${i}.example/hook`));
    for (const target of keys) {
      receivers.script(target.url, () => hangUntilReleased(hung));
      await account(target.userId, 1);
    }
    await dispatcher.tick();
    for (let i = 0; i < 50 && hung.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
    await dispatcher.tick();
    await new Promise((r) => setTimeout(r, 50));
    expect(hung).toHaveLength(2);
    await releaseAll(hung, dispatcher);
    expect(keys.every((target) => receivers.to(target.url).length === 1)).toBe(true);
  });

  it("two dispatchers on one database never attempt the same delivery twice", async () => {
    // One key per claim (claimLimit = perKey), so both dispatchers get work each round.
    const one = setup(undefined, undefined, { claimLimit: 5 });
    const two = setup(undefined, undefined, { claimLimit: 5 });
    const targets = [one.wallet.add("u1", "https://a.example/hook"), one.wallet.add("u1", "https://b.example/hook")];
    for (const target of targets) two.wallet.keys.set(target.apiKeyId, target);
    await account("u1", 20);
    // Both claim side by side until nothing is left (a key takes at most 5 per claim).
    for (let i = 0; i < 12; i++) await Promise.all([one.round(), two.round()]);
    expect(one.receivers.sent.length).toBeGreaterThan(0);
    expect(two.receivers.sent.length).toBeGreaterThan(0);
    for (const target of targets) {
      const all = [...one.receivers.to(target.url), ...two.receivers.to(target.url)];
      const ids = all.map((s) => s.headers["webhook-id"]);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
    }
  });

  it("two dispatchers on one database run one lane per key: in sequence order, one attempt at a time", async () => {
    const clock = { now: T0 };
    const wallet = new Wallet();
    wallet.add("u1", "https://a.example/hook");
    const log: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    let gate: Promise<void> = Promise.resolve();
    const engine = (name: string) =>
      new WebhookDispatcher({
        store: new WebhookStore(db.pool),
        keys: wallet,
        send: async (request) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          log.push(`${name}:${String((JSON.parse(request.body) as { sequence: number }).sequence)}`);
          await gate;
          inFlight--;
          return { ok: true, status: 200, retryAfterMs: null, latencyMs: 1 };
        },
        now: () => clock.now,
        random: () => 0.5,
        log: silentLog,
      });
    const first = engine("A");
    const second = engine("B");
    await account("u1", 10);
    let open = (): void => undefined;
    gate = new Promise<void>((resolve) => (open = resolve));
    await first.tick(); // fans out, claims 1..5; its first attempt hangs on the gate
    await second.tick(); // the key's lane runs in the other engine: nothing for this one
    expect(log).toEqual(["A:1"]);
    open();
    await first.idle();
    await second.tick(); // now free: takes 6..10
    await second.idle();
    expect(log).toEqual(["A:1", "A:2", "A:3", "A:4", "A:5", "B:6", "B:7", "B:8", "B:9", "B:10"]);
    expect(maxInFlight).toBe(1);
  });
});

describe("stopping", () => {
  it("a dispatcher stopping mid-lane gives the rest of the lane back: another engine takes the key at once", async () => {
    const clock = { now: T0 };
    const wallet = new Wallet();
    const a = wallet.add("u1", "https://a.example/hook");
    const sent: string[] = [];
    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const engine = (name: string, wait: boolean) =>
      new WebhookDispatcher({
        store: new WebhookStore(db.pool),
        keys: wallet,
        send: async (request) => {
          sent.push(`${name}:${String((JSON.parse(request.body) as { sequence: number }).sequence)}`);
          if (wait) await gate;
          return { ok: true, status: 200, retryAfterMs: null, latencyMs: 1 };
        },
        now: () => clock.now,
        random: () => 0.5,
        log: silentLog,
      });
    const first = engine("A", true);
    const second = engine("B", false);
    await account(a.userId, 5);
    await first.tick(); // claims 1..5; the first attempt is on the wire
    const stopping = first.stop();
    open();
    await stopping;
    await second.tick();
    await second.idle();
    expect(sent).toEqual(["A:1", "B:2", "B:3", "B:4", "B:5"]);
    expect(await statusOf()).toEqual({ succeeded: 5 });
  });
});

describe("store", () => {
  it("lists an account's events after a sequence, in order, and only to its owner", async () => {
    const accountId = await account("u1", 5);
    const page = await store.listEvents("u1", accountId, 2, 2);
    expect(page.events.map((e) => e.sequence)).toEqual([3, 4]);
    expect(page.hasMore).toBe(true);
    expect((await store.listEvents("u1", accountId, 4, 10)).hasMore).toBe(false);
    await expect(store.listEvents("u2", accountId, 0, 10)).rejects.toMatchObject({ code: "not_found" });
    await expect(store.listEvents("u1", randomUUID(), 0, 10)).rejects.toMatchObject({ code: "not_found" });
  });

  it("prunes settled events past retention with their deliveries and attempts, never a pending one", async () => {
    const { clock, wallet, receivers, round } = setup([0, 60_000]);
    const a = wallet.add("u1", "https://a.example/hook");
    const b = wallet.add("u2", "https://b.example/hook");
    receivers.statuses(b.url, 500);
    const settled = await account("u1", 2);
    const pending = await account("u2", 1);
    await round();
    expect(await statusOf()).toEqual({ succeeded: 2, pending: 1 });
    expect(receivers.to(a.url)).toHaveLength(2);

    clock.now += 10_000;
    expect(await store.prune(clock.now - 5_000, 100)).toBe(2);
    expect((await store.listEvents("u1", settled, 0, 10)).events).toEqual([]);
    expect((await store.listEvents("u2", pending, 0, 10)).events).toHaveLength(1);
    expect(await statusOf()).toEqual({ pending: 1 });
    const attempts = await db.pool.query<{ n: string }>("SELECT count(*) AS n FROM webhook_attempts");
    expect(attempts.rows[0]?.n).toBe("1");
    // Nothing newer than the cut goes.
    expect(await store.prune(T0 - 1, 100)).toBe(0);
  });

  it("the dispatcher prunes past its retention as it goes round", async () => {
    const { clock, wallet, round } = setup([0], 60_000);
    wallet.add("u1", "https://a.example/hook");
    const accountId = await account("u1", 1);
    await round(); // delivered; too young to prune
    expect((await store.listEvents("u1", accountId, 0, 10)).events).toHaveLength(1);
    clock.now += 120_000;
    await round();
    expect((await store.listEvents("u1", accountId, 0, 10)).events).toHaveLength(0);
  });

  it("a redelivery asked while an attempt is in flight keeps its lease: no second sender", async () => {
    await account("u1", 1);
    const wallet = new Wallet();
    const a = wallet.add("u1", "https://a.example/hook");
    const events = await store.unfanned(10);
    await store.fanOut(
      events,
      events.map((e) => ({
        deliveryId: randomUUID(),
        eventId: e.eventId,
        apiKeyId: a.apiKeyId,
        userId: "u1",
        url: a.url,
      })),
      T0,
    );
    const [claimed] = await store.claimDue(T0, 10, 5, 60_000, []);
    expect(claimed).toBeDefined();
    expect(await store.redeliver("u1", a.apiKeyId, claimed?.deliveryId ?? "", T0 + 1)).toMatchObject({
      status: "pending",
    });
    expect(await store.claimDue(T0 + 2, 10, 5, 60_000, [])).toEqual([]);
    // Once the lease is over it is due again.
    expect(await store.claimDue(T0 + 60_001, 10, 5, 60_000, [])).toHaveLength(1);
  });

  it("claims nothing more of a key while one of its deliveries is leased, even after a redelivery from a clock ahead", async () => {
    await account("u1", 2);
    const key = await fanOutToNewKey("u1");
    const [claimed] = await store.claimDue(T0, 10, 1, 60_000, []);
    expect(claimed?.event.sequence).toBe(1);
    // Another engine's claim (no local lane for the key): the key's lane runs elsewhere.
    expect(await store.claimDue(T0 + 1, 10, 5, 60_000, [])).toEqual([]);
    // A redelivery of the in-flight delivery, asked through an engine whose clock runs 10 s ahead.
    await store.redeliver("u1", key, claimed?.deliveryId ?? "", T0 + 10_000);
    expect(await store.claimDue(T0 + 2, 10, 5, 60_000, [])).toEqual([]);
    // The attempt is recorded (lease released): the lane is over and the key's next delivery is claimable.
    await store.recordAttempt({
      deliveryId: claimed?.deliveryId ?? "",
      attempt: 1,
      startedAt: T0 + 1,
      statusCode: 200,
      error: null,
      latencyMs: 1,
      status: "succeeded",
      nextAttemptAt: null,
    });
    expect((await store.claimDue(T0 + 3, 10, 5, 60_000, [])).map((d) => d.event.sequence)).toEqual([2]);
  });

  it("a claim waits for one running in another engine, then sees its leases (no second lane for the key)", async () => {
    await account("u1", 2);
    const key = await fanOutToNewKey("u1");
    const client = await db.pool.connect();
    try {
      // Another engine's claim, under way: it holds the claim lock and has leased the key's first delivery.
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [CLAIM_LOCK]);
      const [first] = (await store.listDeliveries("u1", key, 10, undefined)).deliveries.filter((d) => d.sequence === 1);
      await client.query(
        "UPDATE webhook_deliveries SET lease_until = to_timestamp($2 / 1000.0) WHERE delivery_id = $1",
        [first?.deliveryId, T0 + 60_000],
      );
      let settled = false;
      const racing = store.claimDue(T0 + 1, 10, 5, 60_000, []).finally(() => (settled = true));
      for (;;) {
        const waiting = await db.pool.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
        );
        if (Number(waiting.rows[0]?.n) > 0 || settled) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await client.query("COMMIT");
      expect(await racing).toEqual([]);
    } finally {
      client.release();
    }
  });

  it("claims a key's due deliveries in (account, sequence) order, whatever order they were created in", async () => {
    await account("u1", 6, 1, T0, 0);
    const key = randomUUID();
    const events = await store.unfanned(10);
    // Created in reverse: same next_attempt_at, same created_at, inserted last-first.
    await store.fanOut(
      events,
      [...events]
        .reverse()
        .map((e) => ({ deliveryId: randomUUID(), eventId: e.eventId, apiKeyId: key, userId: "u1", url: "u" })),
      T0,
    );
    const first = await store.claimDue(T0, 10, 2, 60_000, []);
    expect(first.map((d) => d.event.sequence)).toEqual([1, 2]);
  });

  it("queues events decided in the same millisecond for fan-out in (account, sequence) order", async () => {
    const accountId = await account("u1", 20, 1, T0, 0);
    const ids = (await store.listEvents("u1", accountId, 0, 100)).events.map((e) => e.eventId);
    expect((await store.unfanned(20)).map((e) => e.eventId)).toEqual(ids);
    // A batch that cuts through a millisecond takes its first events.
    expect((await store.unfanned(7)).map((e) => e.eventId)).toEqual(ids.slice(0, 7));
  });

  it("reads the oldest queued events first, and fan-out takes exactly its events off the queue", async () => {
    const later = await account("u1", 2, 1, T0 + 10);
    const earlier = await account("u2", 2, 1, T0);
    const [u2First, u2Second] = (await store.listEvents("u2", earlier, 0, 10)).events.map((e) => e.eventId);
    const [u1First, u1Second] = (await store.listEvents("u1", later, 0, 10)).events.map((e) => e.eventId);
    const queued = await store.unfanned(3);
    expect(queued.map((e) => e.eventId)).toEqual([u2First, u2Second, u1First]);

    // Two of them, around one that stays (u2's second, between them in time).
    const batch = [queued[0], queued[2]].filter((e) => e !== undefined);
    const key = randomUUID();
    await store.fanOut(
      batch,
      batch.map((e) => ({ deliveryId: randomUUID(), eventId: e.eventId, apiKeyId: key, userId: e.userId, url: "u" })),
      T0,
    );
    expect((await store.unfanned(10)).map((e) => e.eventId)).toEqual([u2Second, u1Second]);
    const delivered = await db.pool.query<{ event_id: string }>("SELECT event_id FROM webhook_deliveries");
    expect(delivered.rows.map((r) => r.event_id).sort()).toEqual([u2First, u1First].sort());
    // 2 queued events and 2 pending deliveries; the oldest of them all is a delivery, created at T0.
    expect(await store.backlog(T0 + 11)).toEqual({ size: 4, oldestMs: 11 });
  });

  it("two dispatchers fanning out the same events at once create one delivery per event and key, and lose none", async () => {
    await account("u1", 3);
    const queued = await store.unfanned(2);
    expect(queued).toHaveLength(2);
    const keys = [randomUUID(), randomUUID()];
    const deliveries = () =>
      queued.flatMap((e) =>
        keys.map((apiKeyId) => ({ deliveryId: randomUUID(), eventId: e.eventId, apiKeyId, userId: "u1", url: "u" })),
      );
    const first = deliveries();
    const second = deliveries();
    const client = await db.pool.connect();
    try {
      // The first dispatcher's statement has run but not committed; the second's must wait for it.
      await client.query("BEGIN");
      await new WebhookStore({ query: client.query.bind(client) } as unknown as pg.Pool).fanOut(queued, first, T0);
      let settled = false;
      const racing = store.fanOut(queued, second, T0).finally(() => (settled = true));
      while (!settled) {
        // On its own connection: inside a transaction pg_stat_activity is a snapshot that never changes.
        const waiting = await db.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query LIKE '%engine_outbox_pending%'`,
        );
        if (Number(waiting.rows[0]?.n) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(settled).toBe(false);
      await client.query("COMMIT");
      await racing;
    } finally {
      client.release();
    }
    const rows = await db.pool.query<{ delivery_id: string }>("SELECT delivery_id FROM webhook_deliveries");
    expect(rows.rows.map((r) => r.delivery_id).sort()).toEqual(first.map((d) => d.deliveryId).sort());
    // The third event was in neither batch: still queued, alone.
    const left = await store.unfanned(10);
    expect(left).toHaveLength(1);
    expect(queued.map((e) => e.eventId)).not.toContain(left[0]?.eventId);
  });

  it("never prunes an event that is not fanned out yet, however old", async () => {
    const accountId = await account("u1", 2);
    const [fanned] = await store.unfanned(1);
    if (fanned === undefined) throw new Error("nothing queued");
    await store.fanOut([fanned], [], T0);
    expect(await store.prune(T0 + 86_400_000, 100)).toBe(1);
    const kept = (await store.listEvents("u1", accountId, 0, 10)).events;
    expect(kept.map((e) => e.sequence)).toEqual([2]);
    expect((await store.unfanned(10)).map((e) => e.eventId)).toEqual([kept[0]?.eventId]);
  });

  it("reports the backlog and the age of its oldest event", async () => {
    await account("u1", 2);
    expect(await store.backlog(T0 + 60_000)).toEqual({ size: 2, oldestMs: 60_000 });
  });
});

describe("schedule arithmetic", () => {
  it("defaults to the documented schedule: at once, 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h", () => {
    const s = 1_000;
    const min = 60 * s;
    const h = 60 * min;
    expect(DEFAULT_SCHEDULE_MS).toEqual([0, 5 * s, 30 * s, 2 * min, 10 * min, 30 * min, h, 3 * h, 6 * h, 12 * h]);
  });

  it("jitters ±10% and never delays an immediate attempt", () => {
    expect(jittered(0, () => 1)).toBe(0);
    expect(jittered(10_000, () => 0)).toBe(9_000);
    expect(jittered(10_000, () => 1)).toBe(11_000);
  });

  it("caps a huge Retry-After at a day, and ignores it on other statuses", () => {
    const schedule = [0, 1_000];
    const r = (status: number, retryAfterMs: number | null) =>
      nextStep({ ok: true, status, retryAfterMs, latencyMs: 0 }, 1, schedule, () => 0.5);
    expect(r(503, 10 * 86_400_000).nextDelayMs).toBe(86_400_000);
    expect(r(500, 60_000).nextDelayMs).toBe(1_000);
    expect(r(204, null).outcome).toBe("succeeded");
    expect(r(410, null).outcome).toBe("disabled");
    expect(nextStep({ ok: true, status: 500, retryAfterMs: null, latencyMs: 0 }, 2, schedule, () => 0.5).outcome).toBe(
      "failed",
    );
  });
});
