// The dispatcher's memory of pushed revocations stays bounded: entries go after their lifetime, the oldest go first
// past the cap, and a set that dropped an entry early stops vouching for keys until that entry's time is up.
import { describe, expect, it } from "vitest";
import { RevokedKeys } from "./revoked-keys.js";

function clocked(options: { ttlMs?: number; maxEntries?: number } = {}) {
  const clock = { now: 1_000 };
  const keys = new RevokedKeys({ ...options, now: () => clock.now });
  return { clock, keys };
}

describe("RevokedKeys", () => {
  it("answers revoked for a pushed key during its lifetime, and forgets it after", () => {
    const { clock, keys } = clocked({ ttlMs: 60_000 });
    keys.add("k1");
    clock.now += 59_999;
    expect(keys.has("k1")).toBe(true);
    clock.now += 1;
    expect(keys.has("k1")).toBe(false);
    expect(keys.size).toBe(0);
  });

  it("stays at most maxEntries however many keys are revoked", () => {
    const { clock, keys } = clocked({ ttlMs: 60_000, maxEntries: 100 });
    for (let i = 0; i < 10_000; i++) {
      keys.add(`key-${i}`);
      clock.now += 1;
      expect(keys.size).toBeLessThanOrEqual(100);
    }
    expect(keys.has("key-9999")).toBe(true);
    expect(keys.has("key-0")).toBe(false);
  });

  it("shrinks back to nothing once revocations stop for a lifetime", () => {
    const { clock, keys } = clocked({ ttlMs: 1_000 });
    for (let i = 0; i < 1_000; i++) keys.add(`key-${i}`);
    expect(keys.size).toBe(1_000);
    clock.now += 1_000;
    keys.add("later");
    expect(keys.size).toBe(1);
  });

  it("stops vouching for keys while an entry dropped for room would still be alive, so the wallet is asked", () => {
    const { clock, keys } = clocked({ ttlMs: 10_000, maxEntries: 2 });
    const guard = keys.guard(() => true);
    keys.add("a");
    keys.add("b");
    expect(guard.trusted()).toBe(true);
    clock.now += 4_000;
    keys.add("c"); // "a" (revoked at 1 000) goes 6 s early
    expect(guard.revoked("a")).toBe(false);
    expect(guard.trusted()).toBe(false);
    clock.now += 5_999;
    expect(guard.trusted()).toBe(false);
    clock.now += 1;
    expect(guard.trusted()).toBe(true);
    expect(guard.revoked("c")).toBe(true);
  });

  it("vouches for nothing while the wallet's stream is not trusted", () => {
    const { keys } = clocked();
    let stream = false;
    const guard = keys.guard(() => stream);
    expect(guard.trusted()).toBe(false);
    stream = true;
    expect(guard.trusted()).toBe(true);
  });
});
