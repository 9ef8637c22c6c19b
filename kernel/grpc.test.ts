// bindServer with an IPv6 HOST: the address is bracketed, the server binds, and a client reaches it at the
// target the settings derive from HOST (gateway/config.ts, engine/main.ts).
import { createServer } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { joinHostPort } from "./address.js";
import { bindServer } from "./grpc.js";

/** Whether this machine can listen on the IPv6 loopback (a container may have IPv6 off). */
const ipv6Loopback = await new Promise<boolean>((resolve) => {
  const probe = createServer();
  probe.once("error", () => {
    resolve(false);
  });
  probe.listen(0, "::1", () => {
    probe.close(() => {
      resolve(true);
    });
  });
});

describe("bindServer", () => {
  const servers: grpc.Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.forceShutdown();
  });

  async function reachable(target: string): Promise<boolean> {
    const client = new grpc.Client(target, grpc.credentials.createInsecure());
    try {
      return await new Promise<boolean>((resolve) => {
        client.waitForReady(Date.now() + 3_000, (error) => {
          resolve(error === undefined || error === null);
        });
      });
    } finally {
      client.close();
    }
  }

  it("binds an IPv4 host and is reached at host:port", async () => {
    const server = new grpc.Server();
    servers.push(server);
    const port = await bindServer(server, "127.0.0.1", 0);
    expect(port).toBeGreaterThan(0);
    expect(await reachable(joinHostPort("127.0.0.1", port))).toBe(true);
  });

  it.runIf(ipv6Loopback).each(["::1", "::"])("binds HOST=%s and is reached at [host]:port", async (host) => {
    const server = new grpc.Server();
    servers.push(server);
    const port = await bindServer(server, host, 0);
    expect(port).toBeGreaterThan(0);
    expect(await reachable(joinHostPort(host, port))).toBe(true);
  });
});
