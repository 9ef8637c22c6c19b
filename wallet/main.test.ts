// The wallet process's start and stop: a start that fails part-way stops what it had started.
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../kernel/log.js";
import { loadWalletSettings } from "./config.js";
import { startWallet } from "./main.js";

const log = createLogger("test", "silent");

function settings(dataDir: string, grpcPort: number) {
  return loadWalletSettings({
    DATA_DIR: dataDir,
    WALLET_GRPC_PORT: String(grpcPort),
    WALLET_METRICS_PORT: "0",
    LOG_LEVEL: "silent",
  });
}

describe("startWallet", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "fts-wallet-main-"));
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("closes its embedded database when its gRPC port is taken, so the next start can open it", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const address = taken.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    try {
      await expect(startWallet(settings(dataDir, address.port), log)).rejects.toThrow();
    } finally {
      await new Promise<void>((resolve) =>
        taken.close(() => {
          resolve();
        }),
      );
    }
    // The embedded database refuses a second owner of its folder while the first still serves it.
    const wallet = await startWallet(settings(dataDir, 0), log);
    await wallet.stop();
    await wallet.stop();
  }, 120_000);
});
