// grpc.health.v1.Health and reflection as kernel/grpc-standard.ts adds them, on a real server over loopback whose
// readiness the test sets: the status follows the process's phases and its readiness check, health needs no
// token, reflection does.
import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { HealthClient } from "../test/harness/health.js";
import { eventually } from "../test/harness/eventually.js";
import { bindServer, outgoingMetadata, protoDefinition, WALLET_PROTOS } from "./grpc.js";
import { addStandardServices, type StandardServices } from "./grpc-standard.js";
import { listServices, reflectionClient } from "../test/harness/reflection.js";

const TOKEN = "0123456789abcdef-standard";

interface Served {
  services: StandardServices;
  health: HealthClient;
  address: string;
  /** What the readiness check answers next (an Error: it rejects). */
  readiness: { answer: boolean | Error };
}

const servers: grpc.Server[] = [];
const clients: grpc.Client[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  for (const server of servers.splice(0)) server.forceShutdown();
});

async function serve(): Promise<Served> {
  const readiness: { answer: boolean | Error } = { answer: true };
  const server = new grpc.Server();
  servers.push(server);
  const services = addStandardServices(server, {
    definition: protoDefinition(WALLET_PROTOS),
    ready: () =>
      readiness.answer instanceof Error ? Promise.reject(readiness.answer) : Promise.resolve(readiness.answer),
    internalToken: TOKEN,
    pollMs: 20,
  });
  const address = `127.0.0.1:${await bindServer(server, "127.0.0.1", 0)}`;
  const health = new HealthClient(address, grpc.credentials.createInsecure());
  clients.push(health);
  return { services, health, address, readiness };
}

/** Health/Check with no metadata at all, as Kubernetes' gRPC probe sends it. */
function check(health: HealthClient, service = ""): Promise<string> {
  return new Promise((resolve, reject) => {
    health.check({ service }, new grpc.Metadata(), (error, response) => {
      if (error) reject(error);
      else resolve(response?.status ?? "(none)");
    });
  });
}

describe("gRPC health", () => {
  it("answers NOT_SERVING before the process has started, for the whole process and for each of its services", async () => {
    const { services, health } = await serve();
    expect(services.names).toEqual(["", "wallet.v1.Wallet"]);
    expect(await check(health)).toBe("NOT_SERVING");
    expect(await check(health, "wallet.v1.Wallet")).toBe("NOT_SERVING");
  });

  it("answers SERVING without any metadata once started while the readiness check passes", async () => {
    const { services, health } = await serve();
    services.started();
    expect(await check(health)).toBe("SERVING");
    expect(await check(health, "wallet.v1.Wallet")).toBe("SERVING");
  });

  it("answers NOT_SERVING as soon as the readiness check fails or throws, and SERVING when it passes again", async () => {
    const { services, health, readiness } = await serve();
    services.started();
    readiness.answer = false;
    expect(await check(health)).toBe("NOT_SERVING");
    readiness.answer = new Error("database did not answer");
    expect(await check(health, "wallet.v1.Wallet")).toBe("NOT_SERVING");
    readiness.answer = true;
    expect(await check(health)).toBe("SERVING");
  });

  it("answers NOT_SERVING from the moment the process stops, even while the readiness check passes", async () => {
    const { services, health } = await serve();
    services.started();
    expect(await check(health)).toBe("SERVING");
    services.stopping();
    expect(await check(health)).toBe("NOT_SERVING");
  });

  it("answers NOT_FOUND for a service the server does not carry", async () => {
    const { services, health } = await serve();
    services.started();
    await expect(check(health, "engine.v1.Engine")).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it("tells an open Watch every change of status, read on its own, and ends it when the process stops", async () => {
    const { services, health, readiness } = await serve();
    const seen: string[] = [];
    const watch = health.watch({ service: "" });
    watch.on("data", (message: { status: string }) => seen.push(message.status));
    const ended = new Promise<void>((resolve) =>
      watch.on("status", () => {
        resolve();
      }),
    );
    await eventually(() => Promise.resolve(seen.length === 1), "the first status");
    services.started();
    await eventually(() => Promise.resolve(seen.length === 2), "SERVING");
    readiness.answer = false;
    await eventually(() => Promise.resolve(seen.length === 3), "NOT_SERVING from the watch's own poll");
    readiness.answer = true;
    await eventually(() => Promise.resolve(seen.length === 4), "SERVING again");
    services.stopping();
    await ended;
    expect(seen).toEqual(["NOT_SERVING", "SERVING", "NOT_SERVING", "SERVING", "NOT_SERVING"]);
  });
});

describe("gRPC reflection", () => {
  it("refuses a caller without the internal token (UNAUTHENTICATED)", async () => {
    const { address } = await serve();
    const client = reflectionClient(address);
    clients.push(client);
    await expect(listServices(client, new grpc.Metadata())).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
    });
  });

  it("lists the server's services and the health service to a caller with the token", async () => {
    const { address } = await serve();
    const client = reflectionClient(address);
    clients.push(client);
    const names = await listServices(client, outgoingMetadata(undefined, TOKEN));
    expect(names.sort()).toEqual(["grpc.health.v1.Health", "wallet.v1.Wallet"]);
  });
});
