// Failed authentications per source address: blocked after `limit` failures until the window that started
// with the first of them ends; other addresses are not affected; the tracked addresses are bounded.
import { describe, expect, it } from "vitest";
import { AuthFailureLimiter } from "./auth-failures.js";

function setup(limit = 3, maxAddresses = 100) {
  const clock = { now: 1_000 };
  const limiter = new AuthFailureLimiter({ limit, windowMs: 10_000, maxAddresses, now: () => clock.now });
  return { limiter, clock };
}

describe("AuthFailureLimiter", () => {
  it("blocks an address after `limit` failures for the rest of its window, and only that address", () => {
    const { limiter, clock } = setup();
    for (let i = 0; i < 2; i++) limiter.failed("10.0.0.1", "guess");
    expect(limiter.blockedFor("10.0.0.1", "guess")).toBe(0);
    clock.now = 3_000;
    limiter.failed("10.0.0.1", "guess");
    expect(limiter.blockedFor("10.0.0.1", "guess")).toBe(8_000);
    expect(limiter.blockedFor("10.0.0.2", "guess")).toBe(0);
    clock.now = 10_999.5;
    expect(limiter.blockedFor("10.0.0.1", "guess")).toBe(1);
    clock.now = 11_000;
    expect(limiter.blockedFor("10.0.0.1", "guess")).toBe(0);
    // A new window starts with the next failure.
    limiter.failed("10.0.0.1", "guess");
    expect(limiter.blockedFor("10.0.0.1", "guess")).toBe(0);
  });

  it("starts a new count once the window of the first failure has passed", () => {
    const { limiter, clock } = setup();
    limiter.failed("a", "guess");
    limiter.failed("a", "guess");
    clock.now = 11_000;
    limiter.failed("a", "guess");
    expect(limiter.blockedFor("a", "guess")).toBe(0);
  });

  it("tracks at most `maxAddresses`, forgetting the least recently failing", () => {
    const { limiter } = setup(2, 2);
    limiter.failed("a", "guess");
    limiter.failed("b", "guess");
    limiter.failed("a", "guess");
    expect(limiter.blockedFor("a", "guess")).toBeGreaterThan(0);
    limiter.failed("c", "guess");
    expect(limiter.size).toBe(2);
    expect(limiter.blockedFor("a", "guess")).toBeGreaterThan(0);
    limiter.failed("b", "guess");
    expect(limiter.blockedFor("b", "guess")).toBe(0);
  });

  it("neither counts nor blocks a key that authenticated lately", () => {
    const { limiter } = setup(2);
    limiter.vouch("svc_ak_known");
    for (let i = 0; i < 5; i++) limiter.failed("b", "svc_ak_known");
    expect(limiter.blockedFor("b", "guess")).toBe(0);
    limiter.failed("a", "guess");
    limiter.failed("a", "guess");
    expect(limiter.blockedFor("a", "guess")).toBeGreaterThan(0);
    expect(limiter.blockedFor("a", "svc_ak_known")).toBe(0);
  });

  it("limits nothing with a limit of 0", () => {
    const { limiter } = setup(0);
    for (let i = 0; i < 100; i++) limiter.failed("a", "guess");
    expect(limiter.blockedFor("a", "guess")).toBe(0);
    expect(limiter.size).toBe(0);
  });
});
