// The standard gRPC services on the real wallet and engine processes (docs/grpc.md): grpc.health.v1.Health
// answers a Check sent with no metadata, as Kubernetes' gRPC probe sends it, and server reflection lists each
// process's services and describes them well enough for a client that has no .proto file to call them.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { protoPath as healthProtoPath } from "grpc-health-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { outgoingMetadata } from "../../kernel/grpc.js";
import { callByName, clientFromReflection, listServices, reflectionClient } from "../harness/reflection.js";
import { startStack, type Stack } from "../harness/stack.js";

const TOKEN = "grpc-standard-internal-token";
const withToken = (): grpc.Metadata => outgoingMetadata(undefined, TOKEN);

type Check = (
  request: { service: string },
  metadata: grpc.Metadata,
  callback: (error: grpc.ServiceError | null, response?: { status: string }) => void,
) => void;
const Health = (
  grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath, { enums: String })) as unknown as {
    grpc: { health: { v1: { Health: new (t: string, c: grpc.ChannelCredentials) => grpc.Client & { check: Check } } } };
  }
).grpc.health.v1.Health;

/** Health/Check with an empty metadata: no token, nothing else. */
async function check(address: string, service: string): Promise<string> {
  const client = new Health(address, grpc.credentials.createInsecure());
  try {
    return await new Promise((resolve, reject) => {
      client.check({ service }, new grpc.Metadata(), (error, response) => {
        if (error) reject(error);
        else resolve(response?.status ?? "(none)");
      });
    });
  } finally {
    client.close();
  }
}

async function services(address: string): Promise<string[]> {
  const client = reflectionClient(address);
  try {
    return (await listServices(client, withToken())).sort();
  } finally {
    client.close();
  }
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** deploy/compose.yaml's healthcheck script of `service`, pointed at `address` instead of its compose port. */
function composeHealthcheck(service: string, port: number, address: string): string {
  const compose = parseYaml(readFileSync(path.join(ROOT, "deploy", "compose.yaml"), "utf8"), { merge: true }) as {
    services: Record<string, { healthcheck: { test: string[] } }>;
  };
  const script = compose.services[service]?.healthcheck.test[3] ?? "";
  expect(script).toContain(`'127.0.0.1:${port}'`);
  return script.replace(`'127.0.0.1:${port}'`, `'${address}'`);
}

/** The exit code of `node -e script` run from the repository (as the image runs it from /app). */
function exitCode(script: string): Promise<number> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["-e", script], { cwd: ROOT }, (error) => {
      resolve(error === null ? 0 : typeof error.code === "number" ? error.code : 1);
    });
  });
}

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateways: 0, env: { INTERNAL_TOKEN: TOKEN } });
});

afterAll(async () => {
  await stack.stop();
});

describe("gRPC health on the wallet and the engine", () => {
  it("answers SERVING on the wallet, for the process and for wallet.v1.Wallet, to a Check without metadata", async () => {
    const wallet = stack.walletGrpc[0] ?? "";
    expect(await check(wallet, "")).toBe("SERVING");
    expect(await check(wallet, "wallet.v1.Wallet")).toBe("SERVING");
  });

  it("answers SERVING on the engine, for the process and for each of its services, to a Check without metadata", async () => {
    for (const service of ["", "engine.v1.Engine", "engine.v1.EngineSession", "market.v1.MarketData"]) {
      expect(await check(stack.engineGrpc, service), service).toBe("SERVING");
    }
  });
});

describe("deploy/compose.yaml's healthchecks of the wallet and the engine", () => {
  it("pass against the running wallet and engine", async () => {
    expect(await exitCode(composeHealthcheck("wallet", 50052, stack.walletGrpc[0] ?? ""))).toBe(0);
    expect(await exitCode(composeHealthcheck("engine", 50051, stack.engineGrpc))).toBe(0);
  });

  it("fail where nothing serves gRPC health", async () => {
    expect(await exitCode(composeHealthcheck("wallet", 50052, "127.0.0.1:1"))).toBe(1);
  });
});

describe("gRPC reflection on the wallet and the engine", () => {
  it("lists the wallet's services and the health service", async () => {
    expect(await services(stack.walletGrpc[0] ?? "")).toEqual(["grpc.health.v1.Health", "wallet.v1.Wallet"]);
  });

  it("lists the engine's services and the health service", async () => {
    expect(await services(stack.engineGrpc)).toEqual([
      "engine.v1.Engine",
      "engine.v1.EngineSession",
      "grpc.health.v1.Health",
      "market.v1.MarketData",
    ]);
  });

  it("describes wallet.v1.Wallet well enough for a client built from that answer alone to create a key and list it", async () => {
    const wallet = await clientFromReflection(stack.walletGrpc[0] ?? "", withToken(), "wallet.v1.Wallet");
    try {
      const created = await callByName<{ api_key: { id: string; label: string } }>(
        wallet,
        "CreateApiKey",
        { user_id: "reflected-user", label: "from reflection", permissions: ["READ_ONLY"] },
        withToken(),
      );
      const listed = await callByName<{ api_keys: { id: string; label: string }[] }>(
        wallet,
        "ListApiKeys",
        { user_id: "reflected-user" },
        withToken(),
      );
      expect(listed.api_keys.map((key) => [key.id, key.label])).toEqual([[created.api_key.id, "from reflection"]]);
    } finally {
      wallet.close();
    }
  });

  it("describes engine.v1.Engine well enough for a client built from that answer alone to list the tickers", async () => {
    const engine = await clientFromReflection(stack.engineGrpc, withToken(), "engine.v1.Engine");
    try {
      const tickers = await callByName<{ data: { symbol: string; asset_class: string }[] }>(
        engine,
        "ListTickers",
        {},
        withToken(),
      );
      expect(tickers.data.map((ticker) => ticker.symbol)).toContain("BTC-USD");
      await expect(callByName(engine, "ListTickers", {}, new grpc.Metadata())).rejects.toMatchObject({
        code: grpc.status.UNAUTHENTICATED,
      });
    } finally {
      engine.close();
    }
  });
});
