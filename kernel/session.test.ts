// The session stream end to end on loopback: kernel/session-server.ts behind a real grpc-js server and
// kernel/session-client.ts on a real channel. Calls share one stream, replies find their callers in any order,
// errors arrive as the unary path's, and a broken, expired, drained or unauthorised stream fails its calls the
// way a unary call would.
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { ServiceError, fromGrpcError, neverSent, toGrpcStatus } from "./errors.js";
import { bindServer, onShutdown, outgoingMetadata, shutdownServer, unary } from "./grpc.js";
import { createLogger } from "./log.js";
import { SessionClient } from "./session-client.js";
import { sessionServer, type SessionMethod } from "./session-server.js";

const PATH = "/test.v1.Session/Open";
const TOKEN = "internal-token-for-tests";
const log = createLogger("session-test", "silent");

const json = {
  requestDeserialize: (bytes: Buffer): unknown => JSON.parse(bytes.toString("utf8")),
  responseSerialize: (value: unknown): Buffer => Buffer.from(JSON.stringify(value), "utf8"),
};
const encode = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), "utf8");

interface Echo {
  value: number;
  delayMs?: number;
}

/** Requests the handlers saw, with the request id and traceparent each arrived with. */
const seen: { method: string; requestId: string | undefined }[] = [];
/** Calls that never answer until released. */
const parked: (() => void)[] = [];

const options = { internalToken: TOKEN };
const methods = new Map<string, SessionMethod>([
  [
    "Echo",
    {
      ...json,
      direct: unary(
        "Echo",
        async (request: Echo, context) => {
          seen.push({ method: "Echo", requestId: context.requestId });
          if (request.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, request.delayMs));
          return { value: request.value * 2 };
        },
        options,
      ).direct as SessionMethod["direct"],
    },
  ],
  [
    "Fail",
    {
      ...json,
      direct: unary(
        "Fail",
        () => {
          throw new ServiceError("not_found", { account_id: "a" }, "no such account");
        },
        options,
      ).direct,
    },
  ],
  [
    "Park",
    {
      ...json,
      direct: unary(
        "Park",
        () =>
          new Promise((resolve) => {
            parked.push(() => {
              resolve({ parked: true });
            });
          }),
        options,
      ).direct,
    },
  ],
]);

interface Running {
  server: grpc.Server;
  port: number;
  sessions: ReturnType<typeof sessionServer>;
  opened: () => number;
}

const servers: grpc.Server[] = [];
const clients: { session: SessionClient; client: grpc.Client }[] = [];

async function startServer(port = 0, refusal?: Partial<grpc.StatusObject>): Promise<Running> {
  const server = new grpc.Server();
  const sessions = sessionServer(PATH, methods, { internalToken: TOKEN, log, ...(refusal ? { refusal } : {}) });
  let opened = 0;
  const open = sessions.implementation.Open as grpc.handleBidiStreamingCall<Buffer, Buffer>;
  server.addService(sessions.definition, {
    Open: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
      opened++;
      open(call);
    },
  });
  onShutdown(server, () => {
    sessions.drain();
  });
  const bound = await bindServer(server, "127.0.0.1", port);
  servers.push(server);
  return { server, port: bound, sessions, opened: () => opened };
}

function connect(port: number, token = TOKEN): SessionClient {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const session = new SessionClient(client, PATH, () => outgoingMetadata(undefined, token));
  clients.push({ session, client });
  return session;
}

function call(
  session: SessionClient,
  method: string,
  request: unknown,
  deadlineMs = 10_000,
  requestId = "req-1",
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    session.call(method, encode(request), requestId, undefined, deadlineMs, (error, payload) => {
      if (error !== null) reject(error);
      else resolve(JSON.parse((payload ?? Buffer.alloc(0)).toString("utf8")));
    });
  });
}

const codeOf = (error: unknown): unknown => (error as grpc.ServiceError).code;

afterEach(async () => {
  for (const { session, client } of clients.splice(0)) {
    session.close();
    client.close();
  }
  for (const release of parked.splice(0)) release();
  await Promise.all(servers.splice(0).map((server) => shutdownServer(server, 1_000)));
  seen.length = 0;
});

describe("session stream", () => {
  it("carries many calls on one stream; each reply reaches its own caller, in whatever order they finish", async () => {
    const running = await startServer();
    const session = connect(running.port);
    const requests = Array.from({ length: 200 }, (_, i) => ({ value: i, delayMs: (i * 7) % 13 }));
    const replies = await Promise.all(requests.map((r, i) => call(session, "Echo", r, 10_000, `req-${i}`)));
    expect(replies).toEqual(requests.map((r) => ({ value: r.value * 2 })));
    expect(running.opened()).toBe(1);
    expect(session.inFlight).toBe(0);
    expect(seen.map((s) => s.requestId).sort()).toEqual(requests.map((_, i) => `req-${i}`).sort());
  });

  it("a handler's registry error arrives as the unary path's: fromGrpcError rebuilds code, fields and message", async () => {
    const running = await startServer();
    const session = connect(running.port);
    const error = await call(session, "Fail", {}).catch((e: unknown) => e);
    expect(codeOf(error)).toBe(grpc.status.NOT_FOUND);
    const rebuilt = fromGrpcError(error);
    expect(rebuilt.code).toBe("not_found");
    expect(rebuilt.fields).toEqual({ account_id: "a" });
    expect(rebuilt.message).toBe("no such account");
    // The stream survives a failed call.
    await expect(call(session, "Echo", { value: 1 })).resolves.toEqual({ value: 2 });
    expect(running.opened()).toBe(1);
  });

  it("an unknown method is UNIMPLEMENTED and an undecodable request INTERNAL, without ending the stream", async () => {
    const running = await startServer();
    const session = connect(running.port);
    expect(codeOf(await call(session, "Nope", {}).catch((e: unknown) => e))).toBe(grpc.status.UNIMPLEMENTED);
    const bad = await new Promise<unknown>((resolve) => {
      session.call("Echo", Buffer.from("{not json"), "r", undefined, 10_000, (error) => {
        resolve(error);
      });
    });
    expect(codeOf(bad)).toBe(grpc.status.INTERNAL);
    await expect(call(session, "Echo", { value: 3 })).resolves.toEqual({ value: 6 });
    expect(running.opened()).toBe(1);
  });

  it("a stream opened without the internal token is refused: every call on it is UNAUTHENTICATED", async () => {
    const running = await startServer();
    const session = connect(running.port, "wrong-token");
    const errors = await Promise.all(
      [1, 2, 3].map((v) => call(session, "Echo", { value: v }).catch((e: unknown) => e)),
    );
    expect(errors.map(codeOf)).toEqual([
      grpc.status.UNAUTHENTICATED,
      grpc.status.UNAUTHENTICATED,
      grpc.status.UNAUTHENTICATED,
    ]);
    expect(seen).toEqual([]);
  });

  it("calls in flight when the server dies fail UNAVAILABLE; the next call opens a new stream to the restarted server", async () => {
    const first = await startServer();
    const session = connect(first.port);
    const inFlight = call(session, "Park", {}).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(parked).toHaveLength(1);
    first.server.forceShutdown();
    expect(codeOf(await inFlight)).toBe(grpc.status.UNAVAILABLE);
    expect(session.inFlight).toBe(0);
    const second = await startServer(first.port);
    let reply: unknown;
    // The channel reconnects with backoff: the first calls may still fail UNAVAILABLE.
    for (let attempt = 0; attempt < 100 && reply === undefined; attempt++) {
      reply = await call(session, "Echo", { value: 5 }).catch(() => undefined);
      if (reply === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(reply).toEqual({ value: 10 });
    expect(second.opened()).toBe(1);
  });

  it("a call past its deadline fails DEADLINE_EXCEEDED; its late reply is dropped and the stream carries on", async () => {
    const running = await startServer();
    const session = connect(running.port);
    const late = call(session, "Park", {}, 20).catch((e: unknown) => e);
    expect(codeOf(await late)).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(session.inFlight).toBe(0);
    for (const release of parked.splice(0)) release();
    await expect(call(session, "Echo", { value: 4 })).resolves.toEqual({ value: 8 });
    expect(running.opened()).toBe(1);
  });

  it("a graceful shutdown answers the calls in flight, refuses new frames, ends the streams and completes", async () => {
    const running = await startServer();
    const session = connect(running.port);
    await call(session, "Echo", { value: 0 });
    const inFlight = call(session, "Park", {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running.sessions.open()).toBe(1);
    // A grace far above the test's timeout: the shutdown must complete because the stream ended, not by force.
    const stopped = shutdownServer(running.server, 600_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const refused = await call(session, "Echo", { value: 1 }).catch((e: unknown) => e);
    expect(codeOf(refused)).toBe(grpc.status.UNAVAILABLE);
    for (const release of parked.splice(0)) release();
    await expect(inFlight).resolves.toEqual({ parked: true });
    await stopped;
    expect(running.sessions.open()).toBe(0);
    servers.splice(servers.indexOf(running.server), 1);
  });

  it("a draining server answers frames and new streams with its refusal: the caller reads the service's verdict", async () => {
    const refusal = toGrpcStatus(new ServiceError("engine_not_serving", {}, "engine stopping"));
    const running = await startServer(0, refusal);
    const session = connect(running.port);
    let ends = 0;
    session.onServerEnd = () => {
      ends++;
    };
    await call(session, "Echo", { value: 0 });
    const inFlight = call(session, "Park", {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    running.sessions.drain();
    const refused = await call(session, "Echo", { value: 1 }).catch((e: unknown) => e);
    expect(fromGrpcError(refused).code).toBe("engine_not_serving");
    expect(neverSent(refused)).toBe(false);
    for (const release of parked.splice(0)) release();
    await expect(inFlight).resolves.toEqual({ parked: true });
    // The session ended once its call was answered; the next call opens a stream, refused the same way.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ends).toBe(1);
    const reopened = await call(session, "Echo", { value: 2 }).catch((e: unknown) => e);
    expect(fromGrpcError(reopened).code).toBe("engine_not_serving");
    expect(seen.filter((s) => s.method === "Echo")).toHaveLength(1);
  });
});
