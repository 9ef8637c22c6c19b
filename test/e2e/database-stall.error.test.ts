// A database that stops answering (test/harness/stall-proxy.ts between every process and the database, on a
// real PostgreSQL and on the embedded PGlite): requests that need it fail fast with 503, Retry-After and the
// code of the service whose database it is, are counted and logged once with their request id, and the stack
// serves again once the database answers. The deadlines are the defaults (WALLET_DB_TIMEOUT_MS and
// ENGINE_DB_TIMEOUT_MS 1 s, the gateway's GRPC_DEADLINE_MS 1.5 s); the elapsed time is held only below the old
// 10 s gRPC deadline, never to a tight threshold.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "../../kernel/db.js";
import { BACKENDS } from "../harness/backends.js";
import { newKey, request, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { startPostgres } from "../harness/postgres.js";
import { startStack, type Stack } from "../harness/stack.js";
import { startStallProxy, type StallProxy } from "../harness/stall-proxy.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
/** The gRPC deadline the gateway had before: a stalled database made every such request wait this long. */
const OLD_DEADLINE_MS = 10_000;
/** Behavioural bound: well under the old hang, well over the configured deadlines (not a latency target). */
const FAIL_FAST_MS = OLD_DEADLINE_MS / 2;

interface Database {
  url: string;
  stop(): Promise<void>;
}

async function startDatabase(backend: (typeof BACKENDS)[number]): Promise<Database> {
  if (backend === "postgres") return startPostgres();
  const dir = mkdtempSync(path.join(tmpdir(), "fts-stall-pglite-"));
  // The stall proxy stands between its Unix socket and the stack, on a loopback port of its own.
  const embedded = await startEmbeddedPostgres(dir, "pglite");
  return {
    url: embedded.url,
    async stop() {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Timed {
  response: JsonResponse;
  ms: number;
}

async function timed(call: () => Promise<JsonResponse>): Promise<Timed> {
  const started = performance.now();
  const response = await call();
  return { response, ms: performance.now() - started };
}

function counted(metrics: string, service: string): number {
  const line = metrics
    .split("\n")
    .find((l) => l.startsWith("gateway_backend_unavailable_total{") && l.includes(`service="${service}"`));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

describe.each(BACKENDS)("a database that stops answering, on %s", (backend) => {
  let database: Database;
  let proxy: StallProxy;
  let stack: Stack;
  let api: string;
  let base: string;
  let key: CreatedKey;
  const user = "stall-user";

  const apiHeaders = (requestId: string): Record<string, string> => ({
    "content-type": "application/json",
    "x-user-id": user,
    "x-request-id": requestId,
  });
  const createKey = (requestId: string): Promise<JsonResponse> =>
    request(`${api}/api/api-keys`, {
      method: "POST",
      headers: apiHeaders(requestId),
      body: JSON.stringify({ label: "during", permissions: ["READ_ONLY"] }),
    });
  const listKeys = (requestId: string): Promise<JsonResponse> =>
    request(`${api}/api/api-keys`, { headers: apiHeaders(requestId) });
  const openAccount = (requestId: string): Promise<JsonResponse> =>
    v1(base, "/v1/account", key, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": requestId },
      body: JSON.stringify({ plan_id: PLAN_10K, label: "stalled" }),
    });
  const metrics = async (): Promise<string> => (await fetch(`${api}/metrics`)).text();

  beforeAll(async () => {
    database = await startDatabase(backend);
    proxy = await startStallProxy(database.url);
    try {
      // Leases far longer than the stall: the engine's 503s here are its database's, not a lost lease's.
      stack = await startStack({
        databaseUrl: proxy.url,
        engineEnv: { ENGINE_LEASE_TTL_MS: "60000", ENGINE_LEASE_RENEW_MS: "5000" },
      });
    } catch (error) {
      await proxy.stop();
      await database.stop();
      throw error;
    }
    api = stack.gateways[0]?.api ?? "";
    base = stack.gateways[0]?.v1 ?? "";
    key = await newKey(api, user, { label: "bot", permissions: ["READ_ONLY", "TRADE"] });
    // The key is validated once while the database answers (the gateway caches it; the wallet holds it in memory).
    expect((await v1(base, "/v1/plans", key)).status).toBe(200);
  });
  afterAll(async () => {
    proxy.resume();
    await stack.stop();
    await proxy.stop();
    await database.stop();
  });

  it("answers 503 with Retry-After and the failing service's code within the deadline, counts and logs each once, then recovers", async () => {
    const before = await metrics();
    const ids = { create: `stall-create-${backend}`, list: `stall-list-${backend}`, open: `stall-open-${backend}` };
    proxy.stall();
    let answers: Timed[];
    try {
      answers = await Promise.all([
        timed(() => createKey(ids.create)),
        timed(() => listKeys(ids.list)),
        timed(() => openAccount(ids.open)),
      ]);
    } finally {
      proxy.resume();
    }
    const [created, listed, opened] = answers as [Timed, Timed, Timed];

    for (const { response } of [created, listed]) {
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ error: "wallet_unavailable" });
      expect(response.headers.get("retry-after")).toBe("1");
    }
    expect(opened.response.status).toBe(503);
    expect(opened.response.body).toEqual({ error: "engine_unavailable" });
    expect(opened.response.headers.get("retry-after")).toBe("1");
    for (const { ms } of answers) expect(ms).toBeLessThan(FAIL_FAST_MS);

    const after = await metrics();
    expect(counted(after, "wallet") - counted(before, "wallet")).toBe(2);
    expect(counted(after, "engine") - counted(before, "engine")).toBe(1);

    // One warn line per failed request at the gateway, with its request id, naming the service that did not
    // answer as `upstream` (`service` is the gateway's own); no secret. The gateway's output reaches this process
    // through a pipe, after the answers may have: wait for each line.
    const linesOf = (id: string): string[] =>
      stack
        .output()
        .split("\n")
        .filter((line) => line.includes('"msg":"wallet unavailable"') || line.includes('"msg":"engine unavailable"'))
        .filter((line) => line.includes(`"request_id":"${id}"`));
    for (const [id, service] of [
      [ids.create, "wallet"],
      [ids.list, "wallet"],
      [ids.open, "engine"],
    ] as const) {
      await expect.poll(() => linesOf(id).length, { timeout: 10_000, interval: 50 }).toBeGreaterThan(0);
      const mine = linesOf(id);
      expect(mine).toHaveLength(1);
      expect(JSON.parse(mine[0] ?? "{}")).toMatchObject({
        service: "gateway",
        upstream: service,
        code: `${service}_unavailable`,
      });
    }
    expect(stack.output()).not.toContain(key.secret);

    // The database answers again: so does every route, on the connections the pools open anew.
    await expect
      .poll(async () => (await listKeys(`recovered-list-${backend}`)).status, { timeout: 30_000, interval: 250 })
      .toBe(200);
    await expect
      .poll(async () => (await openAccount(`recovered-open-${backend}`)).status, { timeout: 30_000, interval: 250 })
      .toBe(201);
    const again = await createKey(`recovered-create-${backend}`);
    expect(again.status).toBe(201);
  });
});
