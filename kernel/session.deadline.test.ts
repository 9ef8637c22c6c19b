// A call's deadline reaches the handler (kernel/call-deadline.ts): on the session stream as the frame's budget,
// on the unary path as grpc-timeout; a handler's DeadlineExceeded leaves as DEADLINE_EXCEEDED with the
// engine_unavailable trailer, counted by method. Loopback, real grpc-js on both ends; nothing is timed.
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { callDeadline } from "./call-deadline.js";
import { DeadlineExceeded, fromGrpcError } from "./errors.js";
import { bindServer, outgoingMetadata, shutdownServer, unary, type UnaryOptions } from "./grpc.js";
import { createLogger } from "./log.js";
import { SessionClient } from "./session-client.js";
import { sessionServer } from "./session-server.js";

const PATH = "/test.v1.Session/Open";
const log = createLogger("session-deadline-test", "silent");
const json = {
  requestSerialize: (value: unknown): Buffer => Buffer.from(JSON.stringify(value), "utf8"),
  requestDeserialize: (bytes: Buffer): unknown => JSON.parse(bytes.toString("utf8")),
  responseSerialize: (value: unknown): Buffer => Buffer.from(JSON.stringify(value), "utf8"),
  responseDeserialize: (bytes: Buffer): unknown => JSON.parse(bytes.toString("utf8")),
};

const expired: string[] = [];
const options: UnaryOptions = { internalToken: undefined, onExpired: (method) => expired.push(method) };
/** Answers the deadline the handler saw (epoch ms, or null for none). */
const seeDeadline = unary("SeeDeadline", () => ({ deadline: callDeadline() ?? null }), options);
const late = unary(
  "Late",
  () => {
    throw new DeadlineExceeded("engine", "deadline passed before the command was decided");
  },
  options,
);

const servers: grpc.Server[] = [];
const closers: (() => void)[] = [];

async function start(): Promise<{ session: SessionClient; client: grpc.Client }> {
  const server = new grpc.Server();
  const methods = new Map([
    ["SeeDeadline", { ...json, direct: seeDeadline.direct }],
    ["Late", { ...json, direct: late.direct }],
  ]);
  const sessions = sessionServer(PATH, methods, { internalToken: undefined, log });
  server.addService(sessions.definition, sessions.implementation);
  const method = (name: string) => ({
    path: `/test.v1.T/${name}`,
    requestStream: false,
    responseStream: false,
    ...json,
  });
  server.addService({ SeeDeadline: method("SeeDeadline") }, { SeeDeadline: seeDeadline as grpc.UntypedHandleCall });
  const port = await bindServer(server, "127.0.0.1", 0);
  servers.push(server);
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const session = new SessionClient(client, PATH, () => outgoingMetadata(undefined, undefined));
  closers.push(() => {
    session.close();
    client.close();
  });
  return { session, client };
}

function onSession(session: SessionClient, method: string, budgetMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    session.call(method, json.requestSerialize({}), "req-1", undefined, budgetMs, (error, payload) => {
      if (error !== null) reject(error);
      else resolve(json.responseDeserialize(payload ?? Buffer.alloc(0)));
    });
  });
}

afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await Promise.all(servers.splice(0).map((server) => shutdownServer(server, 1_000)));
  expired.length = 0;
});

describe("a call's deadline on the engine's side", () => {
  it("a session frame carries the call's budget: the handler sees a deadline no later than the budget allows", async () => {
    const { session } = await start();
    const before = Date.now();
    const reply = (await onSession(session, "SeeDeadline", 60_000)) as { deadline: number | null };
    expect(reply.deadline).not.toBeNull();
    expect(reply.deadline).toBeGreaterThan(before);
    expect(reply.deadline).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it("a unary call's deadline (grpc-timeout) is the handler's", async () => {
    const { client } = await start();
    const before = Date.now();
    const reply = await new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        "/test.v1.T/SeeDeadline",
        json.requestSerialize,
        json.responseDeserialize,
        {},
        new grpc.Metadata(),
        { deadline: before + 60_000 },
        (error, value) => {
          if (error) reject(error);
          else resolve(value);
        },
      );
    });
    const { deadline } = reply as { deadline: number | null };
    expect(deadline).not.toBeNull();
    expect(deadline).toBeGreaterThan(before);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it("work not decided before its deadline is DEADLINE_EXCEEDED, engine_unavailable to the gateway, and counted", async () => {
    const { session } = await start();
    const error = await onSession(session, "Late", 60_000).catch((e: unknown) => e);
    expect((error as grpc.ServiceError).code).toBe(grpc.status.DEADLINE_EXCEEDED);
    const mapped = fromGrpcError(error);
    expect(mapped.code).toBe("engine_unavailable");
    expect(mapped.httpStatus).toBe(503);
    expect(expired).toEqual(["Late"]);
  });
});
