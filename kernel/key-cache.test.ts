import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "./log.js";
import type { ValidateApiKeyResponse__Output } from "../proto/gen/wallet/v1/ValidateApiKeyResponse.js";
import type { WatchKeysEvent__Output } from "../proto/gen/wallet/v1/WatchKeysEvent.js";
import type { WatchKeysRequest } from "../proto/gen/wallet/v1/WatchKeysRequest.js";
import { KeyCache, type WatchStream } from "./key-cache.js";

class FakeStream extends EventEmitter implements WatchStream {
  readonly sent: WatchKeysRequest[] = [];
  ended = false;
  write(request: WatchKeysRequest): boolean {
    this.sent.push(request);
    return true;
  }
  end(): void {
    this.ended = true;
  }
  cancel(): void {
    this.emit("close");
  }
  push(event: WatchKeysEvent__Output): void {
    this.emit("data", event);
  }
  /** Answers every ping sent so far. */
  pongAll(): void {
    for (const request of this.sent)
      if (request.ping !== undefined) this.push({ kind: "pong", pong: Number(request.ping) });
  }
  lastPing(): number {
    const pings = this.sent.filter((r) => r.ping !== undefined);
    return Number(pings.at(-1)?.ping);
  }
}

const KEY = "ak_live_test";
const SECRET = "sk_live_secret";
const LEASE = 1_500;

function answer(overrides: Partial<ValidateApiKeyResponse__Output> = {}): ValidateApiKeyResponse__Output {
  return {
    valid: true,
    user_id: "user-1",
    key_id: "key-1",
    permissions: ["TRADE"],
    expires_at_ms: 0,
    code: "",
    ip_whitelist: [],
    ...overrides,
  };
}

function setup(options: { ttlMs?: number; maxEntries?: number } = {}) {
  let mono = 1_000;
  let wall = 1_700_000_000_000;
  const streams: FakeStream[] = [];
  const revoked: string[] = [];
  const cache = new KeyCache({
    open: () => {
      const stream = new FakeStream();
      streams.push(stream);
      return stream;
    },
    leaseMs: LEASE,
    pingMs: 500,
    ttlMs: options.ttlMs ?? 60_000,
    maxEntries: options.maxEntries ?? 100,
    now: () => mono,
    wallNow: () => wall,
    onRevoked: (keyId) => revoked.push(keyId),
    log: createLogger("test", "silent"),
    retryMs: 10,
  });
  cache.start();
  const stream = (): FakeStream => {
    const last = streams.at(-1);
    if (last === undefined) throw new Error("no stream");
    return last;
  };
  return {
    cache,
    streams,
    stream,
    revoked,
    advance(ms: number) {
      mono += ms;
      wall += ms;
    },
    setWall(ms: number) {
      wall = ms;
    },
    wall: () => wall,
    /** Lease granted from now. */
    lease() {
      stream().pongAll();
    },
    /** Caches `answer` for KEY/SECRET with a current ticket. */
    remember(value = answer()) {
      cache.remember(cache.ticket(), KEY, SECRET, value);
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("KeyCache lease", () => {
  it("answers nothing before the wallet has answered a ping", () => {
    const t = setup();
    t.remember();
    expect(t.cache.trusted).toBe(false);
    expect(t.cache.size).toBe(0);
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "TRADE")).toBeUndefined();
    t.cache.close();
  });

  it("answers from the cache while the lease runs, and not a millisecond after", () => {
    const t = setup();
    t.lease();
    t.remember();
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "TRADE")).toMatchObject({ valid: true, key_id: "key-1" });
    t.advance(LEASE - 1);
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "TRADE")?.valid).toBe(true);
    t.advance(1);
    expect(t.cache.trusted).toBe(false);
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "TRADE")).toBeUndefined();
    t.cache.close();
  });

  it("measures the lease from the ping's send time, not from the pong's arrival", () => {
    const t = setup();
    const ping = t.stream().lastPing();
    t.advance(1_000);
    t.stream().push({ kind: "pong", pong: ping });
    t.advance(LEASE - 1_000);
    expect(t.cache.trusted).toBe(false);
    t.cache.close();
  });

  it("ignores a pong for a ping it never sent", () => {
    const t = setup();
    t.stream().push({ kind: "pong", pong: 999 });
    expect(t.cache.trusted).toBe(false);
    t.cache.close();
  });

  it("drops every entry and all trust when the stream breaks, then reconnects", async () => {
    vi.useFakeTimers();
    const t = setup();
    t.lease();
    t.remember();
    t.stream().emit("error", new Error("gone"));
    expect(t.cache.trusted).toBe(false);
    expect(t.cache.size).toBe(0);
    await vi.advanceTimersByTimeAsync(20);
    expect(t.streams).toHaveLength(2);
    // A pong arriving late on the old stream grants nothing.
    t.streams[0]?.pongAll();
    expect(t.cache.trusted).toBe(false);
    t.lease();
    expect(t.cache.trusted).toBe(true);
    t.cache.close();
  });
});

describe("KeyCache revocations", () => {
  it("evicts the key, tells the limiter and acks the sequence", () => {
    const t = setup();
    t.lease();
    t.remember();
    t.stream().push({ kind: "revoked", revoked: { seq: 7, key_id: "key-1", key_hash: "h" } });
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "TRADE")).toBeUndefined();
    expect(t.revoked).toEqual(["key-1"]);
    expect(t.stream().sent.at(-1)).toEqual({ ack: 7 });
    t.cache.close();
  });

  it("never keeps an answer that was in flight while a revocation arrived", () => {
    const t = setup();
    t.lease();
    const ticket = t.cache.ticket();
    t.stream().push({ kind: "revoked", revoked: { seq: 1, key_id: "key-1", key_hash: "h" } });
    t.cache.remember(ticket, KEY, SECRET, answer());
    expect(t.cache.size).toBe(0);
    t.cache.close();
  });

  it("never keeps an answer asked before the lease ran (the stream may not have been attached yet)", () => {
    const t = setup();
    const ticket = t.cache.ticket();
    t.lease();
    t.cache.remember(ticket, KEY, SECRET, answer());
    expect(t.cache.size).toBe(0);
    t.cache.close();
  });

  it("never keeps an answer that was in flight across a reconnect", async () => {
    vi.useFakeTimers();
    const t = setup();
    t.lease();
    const ticket = t.cache.ticket();
    t.stream().emit("end");
    await vi.advanceTimersByTimeAsync(20);
    t.lease();
    t.cache.remember(ticket, KEY, SECRET, answer());
    expect(t.cache.size).toBe(0);
    t.cache.close();
  });
});

describe("KeyCache answers", () => {
  it("refuses a wrong secret for a cached key", () => {
    const t = setup();
    t.lease();
    t.remember();
    expect(t.cache.lookup(KEY, "sk_live_wrong", "1.2.3.4", "TRADE")).toMatchObject({
      valid: false,
      code: "unauthorized",
      key_id: "",
    });
    t.cache.close();
  });

  it("judges the allow-list per source address", () => {
    const t = setup();
    t.lease();
    t.remember(answer({ ip_whitelist: ["10.0.0.0/8", "2001:db8::/32"] }));
    expect(t.cache.lookup(KEY, SECRET, "10.1.2.3", "TRADE")?.valid).toBe(true);
    expect(t.cache.lookup(KEY, SECRET, "::ffff:10.1.2.3", "TRADE")?.valid).toBe(true);
    expect(t.cache.lookup(KEY, SECRET, "2001:db8::1", "TRADE")?.valid).toBe(true);
    expect(t.cache.lookup(KEY, SECRET, "11.0.0.1", "TRADE")).toMatchObject({
      valid: false,
      code: "ip_not_whitelisted",
      key_id: "key-1",
      user_id: "user-1",
    });
    t.cache.close();
  });

  it("applies the scope rules: TRADE reads and trades, but cannot manage orders", () => {
    const t = setup();
    t.lease();
    t.remember();
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "READ_ONLY")?.valid).toBe(true);
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "")?.valid).toBe(true);
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "MANAGE_ORDERS")).toMatchObject({
      valid: false,
      code: "permission_denied",
    });
    // An unknown scope is the wallet's to reject.
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "ADMIN")).toBeUndefined();
    t.cache.close();
  });

  it("refuses a key at its expiry instant, by the wall clock", () => {
    const t = setup();
    t.lease();
    const expiresAt = t.wall() + 10_000;
    t.remember(answer({ expires_at_ms: expiresAt }));
    t.setWall(expiresAt - 1);
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "TRADE")?.valid).toBe(true);
    t.setWall(expiresAt);
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "TRADE")).toMatchObject({ valid: false, code: "unauthorized" });
    expect(t.cache.size).toBe(0);
    t.cache.close();
  });

  it("asks the wallet again once an entry is older than the ttl", () => {
    const t = setup({ ttlMs: 1_000 });
    t.lease();
    t.remember();
    t.advance(999);
    t.lease();
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "TRADE")?.valid).toBe(true);
    t.advance(1);
    expect(t.cache.lookup(KEY, SECRET, "1.2.3.4", "TRADE")).toBeUndefined();
    t.cache.close();
  });

  it("keeps only valid answers, and at most maxEntries (oldest evicted)", () => {
    const t = setup({ maxEntries: 2 });
    t.lease();
    t.cache.remember(t.cache.ticket(), KEY, SECRET, answer({ valid: false, code: "permission_denied" }));
    expect(t.cache.size).toBe(0);
    for (const n of [1, 2, 3]) t.cache.remember(t.cache.ticket(), `k${n}`, SECRET, answer({ key_id: `id${n}` }));
    expect(t.cache.size).toBe(2);
    expect(t.cache.lookup("k1", SECRET, "1.2.3.4", "TRADE")).toBeUndefined();
    expect(t.cache.lookup("k3", SECRET, "1.2.3.4", "TRADE")?.valid).toBe(true);
    t.cache.close();
  });

  it("reports the uses it answered, once per key per flush, for last_used_at", async () => {
    vi.useFakeTimers();
    const t = setup();
    t.lease();
    t.remember();
    t.cache.lookup(KEY, SECRET, "1.2.3.4", "TRADE");
    t.advance(5);
    t.cache.lookup(KEY, SECRET, "1.2.3.4", "TRADE");
    await vi.advanceTimersByTimeAsync(500);
    const reports = t.stream().sent.filter((r) => r.used !== undefined);
    expect(reports).toEqual([{ used: { uses: [{ key_id: "key-1", at_ms: t.wall() }] } }]);
    t.cache.close();
  });
});
