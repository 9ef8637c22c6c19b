import { describe, expect, it, vi } from "vitest";
import { Pacer, parsePolicy, parseRateLimit } from "./pacer.js";

const headers = (remaining: number, reset: number): Headers =>
  new Headers({ "ratelimit-policy": "5;w=60", ratelimit: `limit=5, remaining=${remaining}, reset=${reset}` });

/** A pacer on a clock the test moves: each wait it makes is recorded and advances the clock. */
function clocked() {
  let now = 1_000_000;
  const sleeps: number[] = [];
  const pacer = new Pacer({
    now: () => now,
    sleep: (ms) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
    marginMs: 0,
  });
  return { pacer, sleeps };
}

describe("Pacer", () => {
  it("reads the gateway's headers", () => {
    expect(parsePolicy("1200;w=60")).toEqual({ limit: 1200, windowMs: 60_000 });
    expect(parseRateLimit("limit=1200, remaining=7, reset=12")).toEqual({ limit: 1200, remaining: 7, resetMs: 12_000 });
    expect(parsePolicy(null)).toBeUndefined();
    expect(parseRateLimit("limit=1")).toBeUndefined();
  });

  it("sends one request at a time until an answer names the policy", async () => {
    const { pacer } = clocked();
    await pacer.acquire();
    let second = false;
    const next = pacer.acquire().then(() => (second = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(second).toBe(false);
    pacer.release(undefined);
    await next;
    expect(pacer.stats).toEqual({ sent: 2, held: 1 });
  });

  it("waits for the reset when an answer says nothing remains (another process on the key)", async () => {
    const { pacer, sleeps } = clocked();
    await pacer.acquire();
    pacer.release(headers(0, 7));
    await pacer.acquire();
    expect(sleeps).toEqual([7_000]);
  });

  it("takes several slots for a request the gateway counts as several, and waits until that many are free", async () => {
    vi.useFakeTimers();
    try {
      const pacer = new Pacer({ marginMs: 0 });
      const policy = new Headers({ "ratelimit-policy": "5;w=60" });
      await pacer.acquire();
      pacer.release(policy);
      // One slot booked for a window after that answer: 4 free, so a batch of 4 goes at once.
      await pacer.acquire(4);
      vi.advanceTimersByTime(1_000);
      pacer.release(policy, 4);
      // All 5 are booked: a batch of 2 needs the first slot (free at 60 s) and one of the four (61 s).
      let sent = false;
      const batch = pacer.acquire(2).then(() => (sent = true));
      await vi.advanceTimersByTimeAsync(59_000);
      expect(sent).toBe(false);
      await vi.advanceTimersByTimeAsync(1_000);
      await batch;
      expect(sent).toBe(true);
      expect(pacer.stats).toEqual({ sent: 3, held: 1 });
    } finally {
      vi.useRealTimers();
    }
  });
});
