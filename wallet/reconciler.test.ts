// The revocation poll: revocations the bus never delivered are applied from the database, once each, including
// one that becomes visible after a newer one was seen (within the overlap); a failed read is retried from the
// same point.
import { describe, expect, it } from "vitest";
import { createLogger } from "../kernel/log.js";
import { RevocationReconciler, type RevokedRow } from "./reconciler.js";
import { InProcessRevocationBus } from "./revocation-bus.js";

const T0 = Date.parse("2026-11-27T00:00:00.000Z");

function setup() {
  const table: RevokedRow[] = [];
  const reads: number[] = [];
  let failing = false;
  const clock = { now: T0 };
  const bus = new InProcessRevocationBus();
  const applied: string[] = [];
  bus.onRevoked((notice) => {
    applied.push(notice.keyId);
  });
  const reconciled: number[] = [];
  const reconciler = new RevocationReconciler({
    read: (since) => {
      reads.push(since.getTime());
      if (failing) return Promise.reject(new Error("database down"));
      return Promise.resolve(table.filter((row) => row.revokedAt.getTime() > since.getTime()));
    },
    apply: (notice) => bus.applyLocally(notice),
    pollMs: 500,
    overlapMs: 30_000,
    now: () => clock.now,
    log: createLogger("test", "silent"),
    onReconciled: () => reconciled.push(1),
  });
  const revoke = (id: string, atMs: number): void => {
    table.push({ id, keyHash: Buffer.from(id), revokedAt: new Date(atMs) });
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return {
    bus,
    reconciler,
    applied,
    reads,
    reconciled,
    clock,
    revoke,
    settle,
    fail: (on: boolean) => {
      failing = on;
    },
  };
}

describe("RevocationReconciler", () => {
  it("applies revocations the bus did not deliver, once each, and skips those it did", async () => {
    const { bus, reconciler, applied, reconciled, clock, revoke, settle } = setup();
    clock.now = T0 + 1_000;
    revoke("lost", T0 + 900);
    revoke("delivered", T0 + 950);
    await bus.publish({ keyId: "delivered", keyHash: "ZA==" });
    expect(applied).toEqual(["delivered"]);
    await reconciler.poll();
    await settle();
    expect(applied).toEqual(["delivered", "lost"]);
    expect(reconciled).toHaveLength(1);
    // Later polls read the same rows again (the overlap) and apply nothing twice.
    await reconciler.poll();
    await settle();
    expect(applied).toEqual(["delivered", "lost"]);
    expect(reconciled).toHaveLength(1);
  });

  it("finds a revocation that becomes visible after a newer one was seen, within the overlap", async () => {
    const { reconciler, applied, reads, clock, revoke, settle } = setup();
    clock.now = T0 + 10_000;
    revoke("newer", T0 + 9_000);
    await reconciler.poll();
    // Written with an earlier clock, committed later (a slow statement, another host's clock).
    revoke("older", T0 + 5_000);
    await reconciler.poll();
    await settle();
    expect(applied).toEqual(["newer", "older"]);
    expect(reads.at(-1)).toBe(T0 + 9_000 - 30_000);
  });

  it("never moves its starting point past its own clock (a row from a host whose clock runs ahead)", async () => {
    const { reconciler, reads, clock, revoke } = setup();
    clock.now = T0 + 1_000;
    revoke("ahead", T0 + 3_600_000);
    await reconciler.poll();
    await reconciler.poll();
    expect(reads.at(-1)).toBe(T0 + 1_000 - 30_000);
  });

  it("retries a failed read from the same point, and applies what it missed", async () => {
    const { reconciler, applied, reads, clock, revoke, settle, fail } = setup();
    fail(true);
    clock.now = T0 + 5_000;
    revoke("while-down", T0 + 4_000);
    await reconciler.poll();
    expect(applied).toEqual([]);
    fail(false);
    await reconciler.poll();
    await settle();
    expect(applied).toEqual(["while-down"]);
    expect(reads).toEqual([T0 - 30_000, T0 - 30_000]);
  });
});
