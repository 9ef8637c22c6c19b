import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../kernel/log.js";
import type { WatchKeysEvent } from "../proto/gen/wallet/v1/WatchKeysEvent.js";
import { KeyWatchers, type KeyUseReport } from "./watchers.js";

const LEASE = 1_500;
const NOTICE = { keyId: "key-1", keyHash: "aGFzaA==" };

function setup() {
  vi.useFakeTimers();
  const uses: KeyUseReport[] = [];
  const watchers = new KeyWatchers({
    leaseMs: LEASE,
    now: () => Date.now(),
    onUsed: (batch) => uses.push(...batch),
    log: createLogger("test", "silent"),
  });
  const connect = () => {
    const sent: WatchKeysEvent[] = [];
    let ended = false;
    const handlers = watchers.attach({
      send: (event) => sent.push(event),
      end: () => {
        ended = true;
      },
    });
    return { sent, handlers, ended: () => ended };
  };
  return { watchers, connect, uses };
}

/** Tracks whether a promise has settled. */
function settled(promise: Promise<void>): () => boolean {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  return () => done;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("KeyWatchers", () => {
  it("answers each ping with a pong carrying the same number", () => {
    const { connect } = setup();
    const gateway = connect();
    gateway.handlers.message({ kind: "ping", ping: 41 });
    expect(gateway.sent).toEqual([{ pong: 41 }]);
  });

  it("a revocation waits for the watcher's ack", async () => {
    const { watchers, connect } = setup();
    const gateway = connect();
    gateway.handlers.message({ kind: "ping", ping: 1 });
    const done = settled(watchers.revoked(NOTICE));
    expect(gateway.sent.at(-1)).toEqual({ revoked: { seq: 1, key_id: "key-1", key_hash: NOTICE.keyHash } });
    await vi.advanceTimersByTimeAsync(100);
    expect(done()).toBe(false);
    gateway.handlers.message({ kind: "ack", ack: 1 });
    await vi.advanceTimersByTimeAsync(0);
    expect(done()).toBe(true);
  });

  it("acks are cumulative", async () => {
    const { watchers, connect } = setup();
    const gateway = connect();
    gateway.handlers.message({ kind: "ping", ping: 1 });
    const first = settled(watchers.revoked(NOTICE));
    const second = settled(watchers.revoked({ keyId: "key-2", keyHash: "x" }));
    gateway.handlers.message({ kind: "ack", ack: 2 });
    await vi.advanceTimersByTimeAsync(0);
    expect([first(), second()]).toEqual([true, true]);
  });

  it("a silent watcher is outwaited until its lease can have run out, not longer", async () => {
    const { watchers, connect } = setup();
    const gateway = connect();
    gateway.handlers.message({ kind: "ping", ping: 1 });
    await vi.advanceTimersByTimeAsync(500);
    const done = settled(watchers.revoked(NOTICE));
    await vi.advanceTimersByTimeAsync(LEASE - 500 - 1);
    expect(done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done()).toBe(true);
  });

  it("a watcher that never pinged holds no lease: nothing to wait for", async () => {
    const { watchers, connect } = setup();
    connect();
    const done = settled(watchers.revoked(NOTICE));
    await vi.advanceTimersByTimeAsync(0);
    expect(done()).toBe(true);
  });

  it("waits for every watcher", async () => {
    const { watchers, connect } = setup();
    const a = connect();
    const b = connect();
    a.handlers.message({ kind: "ping", ping: 1 });
    b.handlers.message({ kind: "ping", ping: 1 });
    const done = settled(watchers.revoked(NOTICE));
    a.handlers.message({ kind: "ack", ack: 1 });
    await vi.advanceTimersByTimeAsync(0);
    expect(done()).toBe(false);
    b.handlers.message({ kind: "ack", ack: 1 });
    await vi.advanceTimersByTimeAsync(0);
    expect(done()).toBe(true);
  });

  it("a watcher whose stream ended is still outwaited until its lease has run out", async () => {
    const { watchers, connect } = setup();
    const gateway = connect();
    gateway.handlers.message({ kind: "ping", ping: 1 });
    gateway.handlers.closed();
    await vi.advanceTimersByTimeAsync(1_000);
    const done = settled(watchers.revoked(NOTICE));
    // Nothing can be sent on an ended stream.
    expect(gateway.sent).toEqual([{ pong: 1 }]);
    await vi.advanceTimersByTimeAsync(LEASE - 1_000 - 1);
    expect(done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done()).toBe(true);
    // Once the lease is over it is forgotten.
    expect(watchers.size).toBe(0);
  });

  it("passes last-used reports on", () => {
    const { connect, uses } = setup();
    const gateway = connect();
    gateway.handlers.message({ kind: "used", used: { uses: [{ key_id: "key-1", at_ms: 1234 }] } });
    expect(uses).toEqual([{ keyId: "key-1", atMs: 1234 }]);
  });

  it("close ends every stream", () => {
    const { watchers, connect } = setup();
    const gateway = connect();
    watchers.close();
    expect(gateway.ended()).toBe(true);
    expect(watchers.size).toBe(0);
  });
});
