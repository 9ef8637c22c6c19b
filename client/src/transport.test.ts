import { describe, expect, it } from "vitest";
import { ApiError, NetworkError } from "./errors.js";
import { Transport, type RequestSpec, type RetryEvent } from "./transport.js";

/**
 * A transport over scripted answers (a status, "network" for a failed fetch, "limiter-down" for 503
 * rate_limiter_unavailable), recording what it sent.
 */
function scripted(answers: (number | "network" | "limiter-down")[], random = 0.5) {
  const sent: string[] = [];
  const waits: RetryEvent[] = [];
  const transport = new Transport({
    baseUrl: "http://service.test",
    pacer: false,
    random: () => random,
    sleep: () => Promise.resolve(),
    onRetry: (event) => waits.push(event),
    fetch: (_url, init) => {
      sent.push(typeof init?.body === "string" ? init.body : "");
      const answer = answers.shift() ?? 200;
      if (answer === "network") return Promise.reject(new TypeError("fetch failed"));
      const status = answer === "limiter-down" ? 503 : answer;
      const headers: Record<string, string> = answer === 429 ? { "retry-after": "3" } : {};
      const error =
        { 429: "rate_limited", "limiter-down": "rate_limiter_unavailable" }[String(answer)] ?? "engine_error";
      return Promise.resolve(new Response(status === 200 ? "{}" : JSON.stringify({ error }), { status, headers }));
    },
  });
  return { transport, sent, waits };
}

const write = (idempotent: boolean): RequestSpec => ({ method: "POST", path: "/x", body: { a: 1 }, idempotent });

describe("Transport", () => {
  it("retries network failures, 500 and 503 with the same body, backing off 1 s, 2 s, 4 s", async () => {
    const { transport, sent, waits } = scripted(["network", 500, 503, 200], 1);
    const answer = await transport.request(write(true));
    expect(answer.attempts).toBe(4);
    expect(new Set(sent)).toEqual(new Set(['{"a":1}']));
    expect(waits.map((w) => [w.reason, w.delayMs])).toEqual([
      ["network", 1_000],
      ["500", 2_000],
      ["503", 4_000],
    ]);
  });

  it("jitters each backoff to between half and all of it, and caps it at 30 s", () => {
    expect(scripted([], 0).transport.backoff(3)).toBe(2_000);
    expect(scripted([], 1).transport.backoff(3)).toBe(4_000);
    expect(scripted([], 1).transport.backoff(10)).toBe(30_000);
  });

  it("waits at least Retry-After on 429", async () => {
    const { transport, waits } = scripted([429, 200], 0);
    await transport.request(write(true));
    expect(waits.map((w) => w.delayMs)).toEqual([3_000]);
  });

  it("retries a write that is not idempotent only when the gateway refused it unhandled", async () => {
    expect((await scripted([429, 200]).transport.request(write(false))).attempts).toBe(2);
    expect((await scripted(["limiter-down", 200]).transport.request(write(false))).attempts).toBe(2);
    await expect(scripted([503, 200]).transport.request(write(false))).rejects.toMatchObject({
      status: 503,
      attempts: 1,
    });
    await expect(scripted(["network", 200]).transport.request(write(false))).rejects.toBeInstanceOf(NetworkError);
  });

  it("gives up after maxAttempts with the last answer", async () => {
    const { transport, sent } = scripted([500, 500, 500, 500, 500, 500, 500]);
    const error = await transport.request(write(true)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 500, code: "engine_error", attempts: 6 });
    expect(sent).toHaveLength(6);
  });
});
