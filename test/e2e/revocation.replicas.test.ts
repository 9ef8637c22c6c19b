// CONTRACT 1, DELETE: "once it returns, the next request with that key gets 401 on every gateway
// replica", here for two gateways sharing one wallet without Redis (each gateway has its own key cache and an
// in-memory limiter), while the other gateway is being hammered with the key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, revoke, v1 } from "../harness/client.js";

describe("revocation across two gateways on one wallet, no Redis", () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await stackOn("pglite", { gateways: 2 });
  });
  afterAll(async () => {
    await stack.stop();
  });

  it("refuses every request started after DELETE returned, on the other gateway, under load", async () => {
    const [a, b] = stack.gateways;
    if (a === undefined || b === undefined) throw new Error("two gateways expected");
    for (let round = 0; round < 3; round++) {
      const user = `rev-audit-${round}`;
      const key = await newKey(a.api, user);
      // Warm both gateways' caches.
      expect((await v1(a.v1, "/v1/tickers", key)).status).toBe(200);
      expect((await v1(b.v1, "/v1/tickers", key)).status).toBe(200);
      let stop = false;
      let returnedAt = Number.POSITIVE_INFINITY;
      const seen: { startedAt: number; status: number }[] = [];
      const workers = Array.from({ length: 4 }, async () => {
        while (!stop) {
          const startedAt = performance.now();
          const response = await v1(b.v1, "/v1/tickers", key);
          seen.push({ startedAt, status: response.status });
        }
      });
      await new Promise((r) => setTimeout(r, 200));
      const revoked = await revoke(a.api, user, key.id);
      returnedAt = performance.now();
      expect(revoked.status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      stop = true;
      await Promise.all(workers);
      const after = seen.filter((s) => s.startedAt > returnedAt);
      expect(after.length).toBeGreaterThan(0);
      expect(after.filter((s) => s.status !== 401)).toEqual([]);
      expect(seen.some((s) => s.startedAt < returnedAt && s.status === 200)).toBe(true);
    }
  });
});
