// A flood of validations with random, well-formed keys (each one a database read) does not starve key writes:
// the wallet runs at most WALLET_UNKNOWN_KEY_READS such reads at once, so a revoke still finds a connection of
// its pool. The database sits behind a proxy that delays every packet, so the flood outlasts the wallet's
// connection timeout: with the reads on every connection, the revoke would wait behind them and fail.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClients, type Clients } from "../gateway/clients.js";
import { untraced } from "../gateway/origin.js";
import { createLogger } from "../kernel/log.js";
import { startPostgres, type PostgresServer } from "../test/harness/postgres.js";
import { loadWalletSettings } from "./config.js";
import { startWallet, type RunningWallet } from "./main.js";

const DELAY_MS = 20;

/** A loopback TCP proxy that forwards every chunk `delayMs` late (in order), like a slow network. */
async function startDelayProxy(targetUrl: string, delayMs: number): Promise<{ url: string; stop(): Promise<void> }> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: target.hostname, port: Number(target.port) });
    sockets.add(client).add(upstream);
    const pipe = (from: net.Socket, to: net.Socket): void => {
      from.on("data", (chunk: Buffer) => {
        setTimeout(() => {
          if (!to.destroyed) to.write(chunk);
        }, delayMs);
      });
      from.on("close", () => {
        setTimeout(() => to.destroy(), delayMs);
      });
      from.on("error", () => {
        to.destroy();
      });
    };
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(typeof address === "object" && address !== null ? address.port : 0);
  return {
    url: url.toString(),
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}

describe("validations of unknown keys and key writes", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "fts-unknown-reads-"));
  let postgres: PostgresServer;
  let proxy: { url: string; stop(): Promise<void> };
  let wallet: RunningWallet;
  let clients: Clients;

  beforeAll(async () => {
    postgres = await startPostgres();
    proxy = await startDelayProxy(postgres.url, DELAY_MS);
    wallet = await startWallet(
      loadWalletSettings({
        DATA_DIR: dataDir,
        DATABASE_URL: proxy.url,
        WALLET_GRPC_PORT: "0",
        WALLET_METRICS_PORT: "0",
        LOG_LEVEL: "silent",
        WALLET_DB_POOL_SIZE: "2",
        WALLET_UNKNOWN_KEY_READS: "1",
      }),
      createLogger("test", "silent"),
    );
    clients = createClients(`127.0.0.1:${wallet.grpcPort}`, ["127.0.0.1:9"], undefined, undefined, true, 10_000);
  }, 120_000);
  afterAll(async () => {
    clients.close();
    await wallet.stop();
    await proxy.stop();
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("completes a revoke while random keys flood the validation path", async () => {
    const created = await clients.wallet.createApiKey(
      { user_id: "flooded", label: "bot", permissions: ["READ_ONLY"], ip_whitelist: [] },
      untraced("test"),
    );
    const flood = Array.from({ length: 300 }, () =>
      clients.wallet.validateApiKey(
        {
          key: `svc_ak_${randomBytes(24).toString("hex")}`,
          secret: `svc_sk_${randomBytes(24).toString("hex")}`,
          ip: "127.0.0.1",
          permission: "",
        },
        untraced("test"),
      ),
    );
    const settled = Promise.allSettled(flood);
    // Let the flood reach the database first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const revoked = await clients.wallet.revokeApiKey("flooded", created.api_key?.id ?? "", untraced("test"));
    expect(revoked.id).toBe(created.api_key?.id);
    const outcomes = await settled;
    // Every flooded validation was answered: unauthorized, or refused as unavailable once the queue waited too long.
    for (const outcome of outcomes) {
      if (outcome.status === "fulfilled") expect(outcome.value.valid).toBe(false);
      else expect(String(outcome.reason)).toMatch(/wallet_unavailable|UNAVAILABLE/);
    }
  });
});
