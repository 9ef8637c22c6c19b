// A wedged backend (it accepts calls and never answers) costs a request the gateway's gRPC deadline, not a hang:
// the request is 503 with Retry-After and the code of the service that did not answer, counted once and logged
// once with its request id. Driven through the gateway's own clients and error responder.
import http from "node:http";
import * as grpc from "@grpc/grpc-js";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Dependency } from "../kernel/errors.js";
import { bindServer, loadEngineProto } from "../kernel/grpc.js";
import { pino } from "pino";
import { walletServiceDefinition } from "../kernel/wallet-codec.js";
import { createClients, type Clients } from "./clients.js";
import { errorResponder } from "./http/errors.js";
import { requestId } from "./http/request.js";
import { originOf } from "./http/trace.js";

const DEADLINE_MS = 200;
/** The gRPC deadline the gateway had before: the bound here is behavioural, far from the configured deadline. */
const OLD_DEADLINE_MS = 10_000;

/** A server that takes every call of `definition` and never answers it. */
function wedged(definition: grpc.ServiceDefinition): grpc.Server {
  const server = new grpc.Server();
  const never = (): void => undefined;
  server.addService(definition, Object.fromEntries(Object.keys(definition).map((name) => [name, never])));
  return server;
}

describe("a wedged backend", () => {
  const walletServer = wedged(walletServiceDefinition());
  const engineServer = wedged(loadEngineProto().engine.v1.Engine.service);
  const lines: Record<string, unknown>[] = [];
  const counted: Dependency[] = [];
  let clients: Clients;
  let server: http.Server;
  let base = "";

  beforeAll(async () => {
    const walletPort = await bindServer(walletServer, "127.0.0.1", 0);
    const enginePort = await bindServer(engineServer, "127.0.0.1", 0);
    clients = createClients(
      `127.0.0.1:${walletPort}`,
      [`127.0.0.1:${enginePort}`],
      undefined,
      undefined,
      false,
      DEADLINE_MS,
    );
    const log = pino(
      { level: "info", formatters: { level: (label) => ({ level: label }) } },
      {
        write(line: string) {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        },
      },
    );
    const app = express();
    app.use(requestId());
    app.get("/api/keys", async (_req, res) => {
      res.json(await clients.wallet.listApiKeys("u", originOf(res)));
    });
    app.get("/v1/plans", async (_req, res) => {
      res.json(await clients.engine.listPlans(originOf(res)));
    });
    const onUnavailable = (backend: Dependency): void => {
      counted.push(backend);
    };
    app.use("/api", errorResponder(log, { backend: "wallet", onUnavailable }));
    app.use(errorResponder(log, { backend: "engine", onUnavailable }));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  });
  afterAll(async () => {
    clients.close();
    walletServer.forceShutdown();
    engineServer.forceShutdown();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([
    ["/api/keys", "wallet"],
    ["/v1/plans", "engine"],
  ] as const)("answers %s with 503 %s_unavailable and Retry-After once the deadline passed", async (route, service) => {
    const id = `wedged-${service}`;
    const started = performance.now();
    const response = await fetch(`${base}${route}`, { headers: { "x-request-id": id } });
    const elapsed = performance.now() - started;
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: `${service}_unavailable` });
    expect(response.headers.get("retry-after")).toBe("1");
    expect(elapsed).toBeLessThan(OLD_DEADLINE_MS / 2);
    expect(counted.filter((backend) => backend === service)).toHaveLength(1);
    const logged = lines.filter((line) => line.request_id === id);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: "warn",
      upstream: service,
      code: `${service}_unavailable`,
      msg: `${service} unavailable`,
    });
  });
});
