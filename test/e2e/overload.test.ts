// Overload through the real gateway (docs/overload.md): a burst far beyond what one gateway serves at once ends,
// with the documented retries, in exactly the rate limit's answers; and a request shed `503 overloaded` is
// answered before anything is done for it, so it does not count against its key's budget.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `path` with `key`; a 503 is sent again after its Retry-After, at most `retries` times. */
async function withRetries(base: string, path: string, key: CreatedKey, retries: number): Promise<JsonResponse> {
  for (let attempt = 0; ; attempt++) {
    const response = await v1(base, path, key);
    if (response.status !== 503 || attempt === retries) return response;
    await sleep(Number(response.headers.get("retry-after")) * 1000);
  }
}

function tally(responses: readonly JsonResponse[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of responses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe("a burst of three keys through one gateway", () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await stackOn("pglite");
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("ends, with three retries after 503, in exactly 1,200 × 200 and 100 × 429 for every key", async () => {
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    const keys = await Promise.all(["burst-a", "burst-b", "burst-c"].map((user) => newKey(gateway.api, user)));
    const answers = await Promise.all(
      keys.map((key) =>
        Promise.all(Array.from({ length: 1_300 }, () => withRetries(gateway.v1, "/v1/tickers", key, 3))),
      ),
    );
    for (const responses of answers) expect(tally(responses)).toEqual({ 200: 1_200, 429: 100 });
  });
});

describe("a request shed as overloaded", () => {
  const LIMIT = 20;
  let stack: TestStack;

  beforeAll(async () => {
    // One request in flight and no queue: every request that arrives while another is served is shed.
    stack = await stackOn("pglite", {
      gatewayEnv: {
        ADMISSION_LIMIT_MIN: "1",
        ADMISSION_LIMIT_MAX: "1",
        ADMISSION_QUEUE: "0",
        RATE_LIMIT_MAX: String(LIMIT),
        RATE_LIMIT_WINDOW_MS: "600000",
      },
    });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("is answered 503 overloaded with Retry-After and does not count against the key's budget", async () => {
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    const key = await newKey(gateway.api, "shed");
    // An account id nobody holds: the engine is asked (and answers 404), so each admitted request takes a while.
    const path = "/v1/account/00000000-0000-4000-8000-000000000000";
    const burst = await Promise.all(Array.from({ length: 60 }, () => v1(gateway.v1, path, key)));
    const shed = burst.filter((response) => response.status === 503);
    const served = burst.filter((response) => response.status === 404);
    expect(shed.length).toBeGreaterThan(0);
    expect(shed.length + served.length).toBe(burst.length);
    for (const response of shed) {
      expect(response.body.error).toBe("overloaded");
      const retryAfterMs = Number(response.body.retry_after_ms);
      expect(Number(response.headers.get("retry-after"))).toBe(Math.ceil(retryAfterMs / 1000));
      expect(response.headers.get("ratelimit")).toBeNull();
    }
    // The served requests alone were counted: the key has exactly the rest of its budget left.
    let more = 0;
    for (;;) {
      const response = await v1(gateway.v1, path, key);
      if (response.status === 429) break;
      expect(response.status).toBe(404);
      more += 1;
    }
    expect(served.length + more).toBe(LIMIT);
  });
});
