import { describe, expect, it } from "vitest";
import { ApiError, NetworkError, ThrottledError } from "./errors.js";
import { AdaptiveThrottle } from "./throttle.js";
import { Transport, type RequestSpec, type RetryEvent, type TransportOptions } from "./transport.js";

type Scripted = number | "network" | "limiter-down" | "overloaded" | "overloaded-header";

/** The headers and body of each scripted refusal. */
const REFUSALS: Record<string, { headers: Record<string, string>; body: Record<string, unknown> }> = {
  429: { headers: { "retry-after": "3" }, body: { error: "rate_limited" } },
  "limiter-down": { headers: {}, body: { error: "rate_limiter_unavailable" } },
  overloaded: { headers: { "retry-after": "1" }, body: { error: "overloaded", retry_after_ms: 200 } },
  "overloaded-header": { headers: { "retry-after": "2" }, body: { error: "overloaded" } },
};

/**
 * A transport over scripted answers (a status, "network" for a failed fetch, "limiter-down" for 503
 * rate_limiter_unavailable, "overloaded" for 503 overloaded with `retry_after_ms` 200 and "overloaded-header"
 * for one with only `Retry-After: 2`), recording what it sent.
 */
function scripted(answers: Scripted[], random = 0.5, extra: Partial<TransportOptions> = {}) {
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
      const status = typeof answer === "number" ? answer : 503;
      const { headers, body } = REFUSALS[String(answer)] ?? { headers: {}, body: { error: "engine_error" } };
      return Promise.resolve(new Response(status === 200 ? "{}" : JSON.stringify(body), { status, headers }));
    },
    ...extra,
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

  it("waits the body's retry_after_ms on a 429 without Retry-After or RateLimit (as a socket answer is)", async () => {
    const answers = [
      new Response(JSON.stringify({ error: "rate_limited", retry_after_ms: 4500 }), { status: 429 }),
      new Response("{}", { status: 200 }),
    ];
    const fetch = (): Promise<Response> => Promise.resolve(answers.shift() ?? new Response("{}"));
    const { transport, waits } = scripted([], 0, { fetch });
    await transport.request(write(true));
    expect(waits.map((w) => w.delayMs)).toEqual([4_500]);
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

/** An order as a caller could send it through the transport: no `client_id`, so not safe to repeat once handled. */
const order = (): RequestSpec => ({
  method: "POST",
  path: "/v1/order",
  body: { account_id: "a1", symbol: "BTCUSD", side: "buy", type: "market", quantity: "1" },
  idempotent: false,
});

// The retry rules without the throttle (its own tests follow).
const unthrottled = { throttle: false } as const;

describe("Transport on 503 overloaded", () => {
  it("waits the server's retry_after_ms, stretched to between 1 and 1.5 times", async () => {
    const low = scripted(["overloaded", 200], 0, unthrottled);
    await low.transport.request(write(true));
    expect(low.waits.map((w) => [w.reason, w.delayMs])).toEqual([["503 overloaded", 200]]);
    const high = scripted(["overloaded", 200], 1, unthrottled);
    await high.transport.request(write(true));
    expect(high.waits.map((w) => w.delayMs)).toEqual([300]);
  });

  it("waits Retry-After when the body names no retry_after_ms", async () => {
    const { transport, waits } = scripted(["overloaded-header", 200], 1, unthrottled);
    await transport.request(write(true));
    expect(waits.map((w) => w.delayMs)).toEqual([3_000]);
  });

  it("retries an order without client_id, with the same body, but still not on 500", async () => {
    const { transport, sent } = scripted(["overloaded", "overloaded", 200], 0.5, unthrottled);
    expect((await transport.request(order())).attempts).toBe(3);
    expect(sent).toHaveLength(3);
    expect(new Set(sent).size).toBe(1);
    expect(sent[0]).not.toContain("client_id");
    await expect(scripted([500, 200]).transport.request(order())).rejects.toMatchObject({ status: 500, attempts: 1 });
  });

  it("gives up after maxAttempts with the last overloaded answer", async () => {
    const { transport, sent } = scripted(Array<Scripted>(7).fill("overloaded"), 0.5, unthrottled);
    const error = await transport.request(order()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, code: "overloaded", attempts: 6 });
    expect(sent).toHaveLength(6);
  });
});

/** A deterministic random source (a linear congruential generator) for the throttle's draws. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe("Transport's adaptive throttle", () => {
  it("waits out an attempt it refuses like a shed answer, and fails typed when the last is refused", async () => {
    // One overloaded answer in a fresh throttle: the next attempt is refused with probability 1/2; a draw of 0
    // refuses every attempt from then on.
    const { transport, sent, waits } = scripted(["overloaded"], 0, { retry: { maxAttempts: 3 } });
    const error = await transport.request(order()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThrottledError);
    expect(error).toMatchObject({ code: "overloaded", attempts: 3, cause: { status: 503 } });
    expect(sent).toHaveLength(1);
    expect(waits.map((w) => [w.reason, w.delayMs])).toEqual([
      ["503 overloaded", 200],
      ["throttled", 1_000],
    ]);
    expect(transport.throttle?.stats).toMatchObject({ requests: 3, accepts: 0, refused: 2 });
  });

  /** A service that serves or sheds, ten single-attempt requests a simulated second through one throttle. */
  function service() {
    const clock = { now: 0 };
    const throttle = new AdaptiveThrottle({ now: () => clock.now, random: seeded(7) });
    const state = { shedding: false, fetched: 0 };
    const transport = new Transport({
      baseUrl: "http://service.test",
      pacer: false,
      throttle,
      retry: { maxAttempts: 1 },
      sleep: () => Promise.resolve(),
      fetch: () => {
        state.fetched += 1;
        const [status, body] = state.shedding ? [503, { error: "overloaded", retry_after_ms: 200 }] : [200, {}];
        return Promise.resolve(new Response(JSON.stringify(body), { status }));
      },
    });
    const second = async (): Promise<{ ok: number; shed: number; throttled: number; fetched: number }> => {
      const tally = { ok: 0, shed: 0, throttled: 0, fetched: 0 };
      const before = state.fetched;
      for (let i = 0; i < 10; i++) {
        const outcome = await transport.request(write(true)).catch((e: unknown) => e);
        if (outcome instanceof ThrottledError) tally.throttled += 1;
        else if (outcome instanceof ApiError) tally.shed += 1;
        else tally.ok += 1;
      }
      tally.fetched = state.fetched - before;
      clock.now += 1_000;
      return tally;
    };
    const seconds = async (n: number) => {
      const all = [];
      for (let i = 0; i < n; i++) all.push(await second());
      return all;
    };
    return { state, throttle, seconds };
  }

  const total = (tallies: { ok: number; shed: number; throttled: number; fetched: number }[]) =>
    tallies.reduce((a, b) => ({
      ok: a.ok + b.ok,
      shed: a.shed + b.shed,
      throttled: a.throttled + b.throttled,
      fetched: a.fetched + b.fetched,
    }));

  it("refuses locally, sending nothing, when accepts collapse, and sends everything when they come back", async () => {
    const { state, throttle, seconds } = service();
    expect(total(await seconds(30))).toEqual({ ok: 300, shed: 0, throttled: 0, fetched: 300 });

    state.shedding = true;
    const shedding = await seconds(150);
    expect(shedding[0]).toMatchObject({ shed: 10, throttled: 0 });
    const collapsed = total(shedding.slice(-30));
    // What the throttle refused was never sent; it lets about one request in ten through.
    expect(collapsed.fetched).toBe(collapsed.shed);
    expect(collapsed.throttled + collapsed.shed).toBe(300);
    expect(collapsed.throttled).toBeGreaterThan(240);
    expect(collapsed.shed).toBeGreaterThan(0);
    expect(throttle.stats.probability).toBe(0.9);

    state.shedding = false;
    const recovering = await seconds(300);
    // Each second lets more through than the one before it as accepts replace the refusals in the window.
    const back = recovering.findIndex((_, i) => recovering.slice(i).every((t) => t.ok === 10));
    expect(back).toBeGreaterThan(0);
    expect(recovering[0]?.ok).toBeLessThan(5);
    expect(total(recovering.slice(back))).toMatchObject({ throttled: 0, shed: 0 });
    expect(throttle.stats.probability).toBe(0);
  }, 60_000);
});
