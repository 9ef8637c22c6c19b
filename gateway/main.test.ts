// startGateway's parts stop last in first out: a start that fails part-way releases what it had opened; a stop
// drains first (GATEWAY_DRAIN_DELAY_MS of serving with /readyz 503 and Connection: close), then closes.
import http from "node:http";
import { describe, expect, it } from "vitest";
import { createLogger } from "../kernel/log.js";
import { loadGatewaySettings } from "./config.js";
import { startGateway } from "./main.js";

async function listenOn(port: number): Promise<http.Server> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return server;
}

async function close(server: http.Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
}

function portOf(server: http.Server): number {
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("not listening");
  return address.port;
}

describe("startGateway", () => {
  it("closes the /v1 listener it opened when the /api listener cannot listen, and fails", async () => {
    const probe = await listenOn(0);
    const v1Port = portOf(probe);
    await close(probe);
    const taken = await listenOn(0);
    const settings = loadGatewaySettings({
      HOST: "127.0.0.1",
      HTTP_PORT: String(v1Port),
      WALLET_HTTP_PORT: String(portOf(taken)),
      WALLET_GRPC_TARGET: "127.0.0.1:1",
      ENGINE_GRPC_TARGETS: "127.0.0.1:1",
    });
    try {
      await expect(startGateway(settings, createLogger("gateway", "silent"))).rejects.toMatchObject({
        code: "EADDRINUSE",
      });
      // The /v1 port is free again: the failed start drained the listener it had opened.
      await close(await listenOn(v1Port));
    } finally {
      await close(taken);
    }
  });
});

describe("startGateway's stop", () => {
  it("keeps serving for GATEWAY_DRAIN_DELAY_MS with Connection: close and /readyz 503, then closes", async () => {
    const settings = loadGatewaySettings({
      HOST: "127.0.0.1",
      HTTP_PORT: "0",
      WALLET_HTTP_PORT: "0",
      WALLET_GRPC_TARGET: "127.0.0.1:1",
      ENGINE_GRPC_TARGETS: "127.0.0.1:1",
      // Long enough for the few requests below to be answered while it drains on a loaded machine.
      GATEWAY_DRAIN_DELAY_MS: "5000",
    });
    const gateway = await startGateway(settings, createLogger("gateway", "silent"));
    const base = `http://127.0.0.1:${gateway.httpPort}`;
    const before = await fetch(`${base}/healthz`);
    expect(before.headers.get("connection")).toBe("keep-alive");
    const stopped = gateway.stop();
    // Draining: still served, each answer closes its connection, and readiness is refused.
    for (const path of ["/healthz", "/healthz"]) {
      const answer = await fetch(`${base}${path}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("connection")).toBe("close");
    }
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "not_ready" });
    expect((await fetch(`http://127.0.0.1:${gateway.walletHttpPort}/healthz`)).headers.get("connection")).toBe("close");
    expect(await Promise.race([stopped.then(() => "stopped"), Promise.resolve("draining")])).toBe("draining");
    await stopped;
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  }, 30_000);
});
