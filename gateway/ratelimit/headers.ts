// Turns a rate-limit decision into the IETF RateLimit / RateLimit-Policy headers, Retry-After
// and the 429 body, so every gateway route reports limits the same way.

import type { RateLimitDecision } from "./types.js";

export function rateLimitHeaders(d: RateLimitDecision, windowMs: number): Record<string, string> {
  const headers: Record<string, string> = {
    "RateLimit-Policy": `${d.limit};w=${Math.ceil(windowMs / 1000)}`,
    RateLimit: `limit=${d.limit}, remaining=${d.remaining}, reset=${Math.ceil(d.resetMs / 1000)}`,
  };
  if (!d.allowed && !d.revoked) {
    headers["Retry-After"] = String(Math.max(1, Math.ceil(d.retryAfterMs / 1000)));
  }
  return headers;
}

export function retryAfterBody(d: RateLimitDecision): { error: "rate_limited"; retry_after_ms: number } {
  return { error: "rate_limited", retry_after_ms: d.retryAfterMs };
}
