// An engine waiting for its partition leases listens (engine/listeners.ts, docs/scale-out.md "Standbys"), on
// PostgreSQL: engine A holds index 0; engine B, its successor, listens meanwhile and refuses every call, session
// frame and account stream with engine_not_serving (nothing ran), says NOT_SERVING and /readyz 503, answers
// /healthz and /metrics, and a gateway's readiness does not count it; once A hands over, B serves on the same
// ports. A waiting engine given up (a SIGTERM while waiting) closes its ports and its start rejects.
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HealthClient } from "../test/harness/health.js";
import { createClients, serving } from "../gateway/clients.js";
import { untraced } from "../gateway/origin.js";
import { fromGrpcError } from "../kernel/errors.js";
import { CHANNEL_OPTIONS, loadEngineProto, outgoingMetadata } from "../kernel/grpc.js";
import { SessionClient } from "../kernel/session-client.js";
import { ENGINE_SESSION_PATH } from "../kernel/session-codec.js";
import type { EngineClient } from "../proto/gen/engine/v1/Engine.js";
import { eventually } from "../test/harness/eventually.js";
import { freePort } from "../test/harness/ports.js";
import { startPostgres, type PostgresServer } from "../test/harness/postgres.js";
import type { RunningEngine } from "./main.js";
import { TestEngine } from "./main.testing.js";
import { freshDatabase } from "./store/fresh-database.testing.js";

const TOKEN = "engine-listeners-waiting-token";
const PLAN_ID = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const USER = "3b1f6a0e-2c4d-4e8f-9a10-5b6c7d8e9f01";

let server: PostgresServer;
let databaseUrl: string;

beforeAll(async () => {
  server = await startPostgres();
  databaseUrl = await freshDatabase(server.url);
});

afterAll(async () => {
  await server.stop();
});

/** An engine of index 0 of 1 on the shared database, on fixed ports (known before it serves). */
async function engineOn(name: string): Promise<{ engine: TestEngine; grpc: string; admin: string }> {
  const grpcPort = await freePort();
  const adminPort = await freePort();
  const engine = new TestEngine(name, TOKEN, {
    DATABASE_URL: databaseUrl,
    PRICE_FEED: "push",
    WEBHOOKS_ENABLED: "false",
    ENGINE_GRPC_PORT: String(grpcPort),
    ENGINE_METRICS_PORT: String(adminPort),
    ENGINE_LEASE_POLL_MS: "50",
  });
  return { engine, grpc: `127.0.0.1:${grpcPort}`, admin: `http://127.0.0.1:${adminPort}` };
}

function healthOf(address: string): Promise<string> {
  const client = new HealthClient(address, grpc.credentials.createInsecure());
  return new Promise<string>((resolve, reject) => {
    client.check({ service: "" }, new grpc.Metadata(), (error, response) => {
      if (error) reject(error);
      else resolve(response?.status ?? "(none)");
    });
  }).finally(() => {
    client.close();
  });
}

/** The registry code (or the gRPC status) a rejected call failed with. */
async function refusalOf(call: Promise<unknown>): Promise<string> {
  const error: unknown = await call.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (error === undefined) return "answered";
  const code = (error as { code?: unknown }).code;
  if (code === grpc.status.UNAUTHENTICATED) return "UNAUTHENTICATED";
  return fromGrpcError(error).code;
}

/** One WatchAccount on `address`: the code of the error that ended it. */
function watchRefusal(address: string, accountId: string): Promise<string> {
  const client: EngineClient = new (loadEngineProto().engine.v1.Engine)(
    address,
    grpc.credentials.createInsecure(),
    CHANNEL_OPTIONS,
  );
  const call = client.WatchAccount({ user_id: USER, account_id: accountId, after: 0 }, outgoingMetadata("w", TOKEN));
  return refusalOf(
    new Promise((resolve, reject) => {
      call.on("data", resolve);
      call.on("error", reject);
    }),
  ).finally(() => {
    call.cancel();
    client.close();
  });
}

/** ListPlans on its own (not on a session), with or without the internal token. */
function listPlans(address: string, token: string | undefined): Promise<unknown> {
  const client: EngineClient = new (loadEngineProto().engine.v1.Engine)(
    address,
    grpc.credentials.createInsecure(),
    CHANNEL_OPTIONS,
  );
  return new Promise((resolve, reject) => {
    client.ListPlans({}, outgoingMetadata("p", token), (error, response) => {
      if (error) reject(error);
      else resolve(response);
    });
  }).finally(() => {
    client.close();
  });
}

/** One ListPlans frame on an engine.v1.EngineSession stream (the gateway's path for every unary call). */
function sessionFrame(address: string): Promise<unknown> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  const session = new SessionClient(client, ENGINE_SESSION_PATH, () => outgoingMetadata(undefined, TOKEN));
  return new Promise((resolve, reject) => {
    session.call("ListPlans", Buffer.alloc(0), "s", undefined, 5_000, (error, payload) => {
      if (error) reject(error);
      else resolve(payload);
    });
  }).finally(() => {
    session.close();
    client.close();
  });
}

/** The gateway's readiness check of one engine target. */
async function servingFor(address: string): Promise<boolean> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  try {
    return await serving(client, 5_000);
  } finally {
    client.close();
  }
}

const statusOf = async (url: string): Promise<number> => (await fetch(url)).status;

describe("an engine waiting for its partition leases", () => {
  it("listens and refuses every call, frame and stream as not served, then serves on the same ports after the hand-over", async () => {
    const a = await engineOn("listeners-waiting-a");
    await a.engine.start();
    const owner = createClients("127.0.0.1:9", [a.grpc], TOKEN);
    const account = await owner.engine.createAccount({ user_id: USER, plan_id: PLAN_ID }, untraced("c"));
    owner.close();

    const b = await engineOn("listeners-waiting-b");
    let started: RunningEngine | undefined;
    const starting = b.engine.start().then((running) => (started = running));
    const clients = createClients("127.0.0.1:9", [b.grpc], TOKEN);
    try {
      await eventually(async () => (await statusOf(`${b.admin}/healthz`)) === 200, "the waiting engine's /healthz");
      expect(await statusOf(`${b.admin}/readyz`)).toBe(503);
      expect(await statusOf(`${b.admin}/metrics`)).toBe(200);
      expect(await healthOf(b.grpc)).toBe("NOT_SERVING");
      // A gateway does not count it as an engine that serves (its /readyz).
      expect(await servingFor(b.grpc)).toBe(false);
      // A session frame, a call on its own, an account stream: refused before anything ran.
      expect(await refusalOf(sessionFrame(b.grpc))).toBe("engine_not_serving");
      // The gateway's name for it: the call did not run, the engine does not serve the partition now.
      await expect(
        clients.engine.getAccount({ user_id: USER, account_id: account.account_id }, untraced("g")),
      ).rejects.toMatchObject({ code: "engine_unavailable", message: "engine 0 does not serve the partition now" });
      expect(await refusalOf(listPlans(b.grpc, TOKEN))).toBe("engine_not_serving");
      expect(await refusalOf(listPlans(b.grpc, undefined))).toBe("UNAUTHENTICATED");
      expect(await watchRefusal(b.grpc, account.account_id)).toBe("engine_not_serving");
      expect(started).toBeUndefined();

      await a.engine.stop(); // the hand-over: drained, leases released
      await starting;
      expect(await healthOf(b.grpc)).toBe("SERVING");
      expect(await servingFor(b.grpc)).toBe(true);
      expect(await statusOf(`${b.admin}/readyz`)).toBe(200);
      const read = await clients.engine.getAccount({ user_id: USER, account_id: account.account_id }, untraced("g2"));
      expect(read.account_id).toBe(account.account_id);
      await expect(listPlans(b.grpc, TOKEN)).resolves.toBeDefined();
      await expect(sessionFrame(b.grpc)).resolves.toBeDefined();
    } finally {
      clients.close();
      await a.engine.stop();
      await starting.catch(() => undefined);
      await b.engine.stop();
    }
  });

  it("gives up waiting when its start is aborted: the start rejects and its ports close", async () => {
    const a = await engineOn("listeners-abort-a");
    await a.engine.start();
    const b = await engineOn("listeners-abort-b");
    const abort = new AbortController();
    const starting = b.engine.start({ signal: abort.signal }).then(
      () => "started",
      () => "gave up",
    );
    try {
      await eventually(async () => (await statusOf(`${b.admin}/healthz`)) === 200, "the waiting engine's /healthz");
      abort.abort();
      expect(await starting).toBe("gave up");
      await expect(fetch(`${b.admin}/healthz`)).rejects.toThrow();
      await expect(healthOf(b.grpc)).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    } finally {
      await b.engine.stop();
      await a.engine.stop();
    }
  });
});
