// An engine started in the test's own process (engine/main.ts), on a fresh embedded database under a
// temporary folder that `stop` removes: free ports, silent logs, and every call needing the internal token.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger } from "../kernel/log.js";
import type { PlaceOrderRequest } from "../proto/gen/engine/v1/PlaceOrderRequest.js";
import { loadEngineSettings, type EngineSettings } from "./config.js";
import { startEngine, type EngineOverrides, type RunningEngine } from "./main.js";

export class TestEngine {
  readonly settings: EngineSettings;
  private readonly dataDir: string;
  private running: RunningEngine | undefined;

  /** `env` adds to (or overrides) the test settings; `name` names the temporary folder. */
  constructor(name: string, token: string, env: Record<string, string> = {}) {
    this.dataDir = mkdtempSync(path.join(tmpdir(), `fts-${name}-`));
    this.settings = loadEngineSettings({
      ENGINE_GRPC_PORT: "0",
      ENGINE_METRICS_PORT: "0",
      INTERNAL_TOKEN: token,
      LOG_LEVEL: "silent",
      DATA_DIR: this.dataDir,
      ...env,
    });
  }

  async start(overrides: EngineOverrides = {}): Promise<RunningEngine> {
    this.running = await startEngine(this.settings, createLogger("engine", "silent"), overrides);
    return this.running;
  }

  /** The engine's gRPC address (once started). */
  get address(): string {
    if (this.running === undefined) throw new Error("the test engine has not started");
    return `127.0.0.1:${this.running.grpcPort}`;
  }

  async stop(): Promise<void> {
    await this.running?.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** A BUY LIMIT of 0.01 BTC-USD at 1000, far below the reference price: it rests (NEW). */
export function restingBuy(userId: string, accountId: string): PlaceOrderRequest {
  return {
    user_id: userId,
    account_id: accountId,
    symbol: "BTC-USD",
    side: "BUY",
    kind: "LIMIT",
    quantity: "0.01",
    limit_price: "1000",
  };
}
