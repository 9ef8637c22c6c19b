// Pins the exact RateLimit / Retry-After header text clients and SDKs parse.

import { describe, expect, it } from "vitest";
import { rateLimitHeaders, retryAfterBody } from "./headers.js";
import type { RateLimitDecision } from "./types.js";

const base: RateLimitDecision = {
  allowed: true,
  revoked: false,
  limit: 1200,
  remaining: 1199,
  resetMs: 60_000,
  retryAfterMs: 0,
  delayMs: 0,
};

describe("rateLimitHeaders", () => {
  const cases: { name: string; d: RateLimitDecision; windowMs: number; expected: Record<string, string> }[] = [
    {
      name: "describes the policy and the remaining quota of an allowed request",
      d: base,
      windowMs: 60_000,
      expected: { "RateLimit-Policy": "1200;w=60", RateLimit: "limit=1200, remaining=1199, reset=60" },
    },
    {
      name: "rounds a partial second of reset time up",
      d: { ...base, remaining: 3, resetMs: 1001 },
      windowMs: 60_000,
      expected: { "RateLimit-Policy": "1200;w=60", RateLimit: "limit=1200, remaining=3, reset=2" },
    },
    {
      name: "reports a reset of 0 when nothing is in the window",
      d: { ...base, limit: 20, remaining: 20, resetMs: 0 },
      windowMs: 1000,
      expected: { "RateLimit-Policy": "20;w=1", RateLimit: "limit=20, remaining=20, reset=0" },
    },
    {
      name: "adds Retry-After in whole seconds, rounded up, to a refused request",
      d: { ...base, allowed: false, remaining: 0, resetMs: 2500, retryAfterMs: 2500 },
      windowMs: 60_000,
      expected: {
        "RateLimit-Policy": "1200;w=60",
        RateLimit: "limit=1200, remaining=0, reset=3",
        "Retry-After": "3",
      },
    },
    {
      name: "never advertises a Retry-After below one second",
      d: { ...base, allowed: false, remaining: 0, resetMs: 1, retryAfterMs: 1 },
      windowMs: 60_000,
      expected: {
        "RateLimit-Policy": "1200;w=60",
        RateLimit: "limit=1200, remaining=0, reset=1",
        "Retry-After": "1",
      },
    },
    {
      name: "leaves Retry-After out for a revoked key, since waiting does not help",
      d: { ...base, allowed: false, revoked: true, remaining: 0, resetMs: 0, retryAfterMs: 0 },
      windowMs: 60_000,
      expected: { "RateLimit-Policy": "1200;w=60", RateLimit: "limit=1200, remaining=0, reset=0" },
    },
    {
      name: "rounds a window that is not a whole number of seconds up",
      d: { ...base, limit: 50, remaining: 10, resetMs: 400 },
      windowMs: 1500,
      expected: { "RateLimit-Policy": "50;w=2", RateLimit: "limit=50, remaining=10, reset=1" },
    },
  ];

  it.each(cases)("$name", ({ d, windowMs, expected }) => {
    expect(rateLimitHeaders(d, windowMs)).toEqual(expected);
  });
});

describe("retryAfterBody", () => {
  it.each([
    { retryAfterMs: 1, expected: { error: "rate_limited", retry_after_ms: 1 } },
    { retryAfterMs: 2500, expected: { error: "rate_limited", retry_after_ms: 2500 } },
  ])("carries the exact retry delay of $retryAfterMs ms in milliseconds", ({ retryAfterMs, expected }) => {
    expect(retryAfterBody({ ...base, allowed: false, remaining: 0, retryAfterMs })).toEqual(expected);
  });
});
