// Starts the real processes (wallet(s), engine(s), gateway(s)) on random loopback ports, as `npm start` would,
// and keeps everything they print so tests can inspect the logs; stopping the stack fails if a JSON log line
// wrote a key twice (test/harness/log-lines.ts). Gateway i talks to wallet i % wallets and to
// every engine (engine k with ENGINE_INDEX=k of ENGINE_COUNT, docs/scale-out.md).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LogLines } from "./log-lines.js";
import { freePort } from "./ports.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export type { GatewayEndpoints, RestartOptions, Stack, StackOptions } from "./stack-options.js";
import type { GatewayEndpoints, RestartOptions, Stack, StackOptions } from "./stack-options.js";

interface Started {
  child: ChildProcess;
  name: string;
  /** The process's "… listening" log line (with the ports it bound); rejects if it exits first. */
  listening: Promise<Record<string, unknown>>;
}

async function waitHttp(url: string, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready within ${timeoutMs} ms\n${describe()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Engine 0 keeps the name "engine" (tests look for it in the logs). */
const engineName = (index: number): string => (index === 0 ? "engine" : `engine-${index}`);

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "fts-stack-"));
  const chunks: string[] = [];
  const lines = new LogLines();
  const started: Started[] = [];
  const output = (): string => chunks.join("");

  const launch = (name: string, entry: string, env: Record<string, string>): Started => {
    // STACK_NODE_ARGS adds node flags to every process, for profiling a benchmark's stack
    // (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"; NODE_OPTIONS does not allow --cpu-prof).
    const extra = (process.env.STACK_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "");
    const child = spawn(process.execPath, [...extra, "--import", "tsx", path.join(ROOT, entry)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "info", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Processes other than the engines bind port 0 and log the ports they got: no window in which another
    // process takes a port.
    let announce: (line: Record<string, unknown>) => void = () => undefined;
    let fail: (error: Error) => void = () => undefined;
    const listening = new Promise<Record<string, unknown>>((resolve, reject) => {
      announce = resolve;
      fail = reject;
    });
    child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => chunks.push(chunk.toString("utf8")));
    lines.watch(name, child.stdout, (line) => {
      if (!line.includes("listening")) return;
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (typeof parsed.msg === "string" && parsed.msg.endsWith("listening")) announce(parsed);
      } catch {
        // not a JSON log line
      }
    });
    lines.watch(name, child.stderr);
    child.once("exit", (code, signal) => {
      fail(new Error(`${name} exited (${signal ?? String(code)}) before listening\n${output()}`));
    });
    const silence = setTimeout(() => {
      fail(new Error(`${name} did not announce "… listening" within 120 s\n${output()}`));
    }, 120_000);
    silence.unref();
    void listening.then(
      () => {
        clearTimeout(silence);
      },
      () => {
        clearTimeout(silence);
      },
    );
    // Marked handled: a process stopped before it announced itself must not surface as an unhandled rejection.
    listening.catch(() => undefined);
    const entryStarted: Started = { child, name, listening };
    started.push(entryStarted);
    return entryStarted;
  };

  const portOf = (line: Record<string, unknown>, field: string): number => {
    const value = line[field];
    if (typeof value !== "number") throw new Error(`no ${field} in ${JSON.stringify(line)}`);
    return value;
  };

  const common: Record<string, string> = { HOST: "127.0.0.1", DATA_DIR: dataDir, ...options.env };
  if (options.databaseUrl !== undefined) common.DATABASE_URL = options.databaseUrl;
  if (options.redisUrl !== undefined) common.REDIS_URL = options.redisUrl;

  if (options.databaseUrl === undefined) {
    const database = launch("database", "scripts/embedded-database.ts", { DATA_DIR: dataDir });
    common.DATABASE_URL = await database.listening.then(
      (line) => String(line.url),
      (error: unknown) => {
        database.child.kill("SIGKILL");
        rmSync(dataDir, { recursive: true, force: true });
        throw error;
      },
    );
  }

  const walletCount = options.wallets ?? 1;
  const wallets = Array.from({ length: walletCount }, (_, i) =>
    launch(`wallet-${i}`, "wallet/main.ts", {
      ...common,
      ...options.walletEnv,
      ...options.walletEnvs?.[i],
      WALLET_GRPC_PORT: "0",
      WALLET_METRICS_PORT: "0",
    }),
  );
  const engineCount = options.engines ?? 1;
  // An engine can be restarted, and must come back on the ports the gateways look for it on: they are chosen
  // outside the kernel's ephemeral range (test/harness/ports.ts), where no outgoing connection can take them
  // while the engine is down.
  const engineEnvs = await Promise.all(
    Array.from({ length: engineCount }, async (_, index): Promise<Record<string, string>> => ({
      // Short leases, so an engine killed with SIGKILL is replaced within seconds (the default is 10 s).
      ENGINE_LEASE_TTL_MS: "3000",
      ENGINE_LEASE_RENEW_MS: "1000",
      ...common,
      ...options.engineEnv,
      ENGINE_COUNT: String(engineCount),
      ENGINE_INDEX: String(index),
      ENGINE_GRPC_PORT: String(await freePort()),
      ENGINE_METRICS_PORT: String(await freePort()),
    })),
  );
  // The engines start once the wallets listen: their webhook dispatchers ask wallet 0 for webhook targets.
  const engines: (Started | undefined)[] = [];
  const successors = new Map<number, Started>();
  const standbys: Started[] = [];

  const stopProcesses = async (which: Started[]): Promise<void> => {
    await Promise.all(
      which.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) {
              resolve();
              return;
            }
            const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
            child.once("exit", () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill("SIGTERM");
          }),
      ),
    );
  };
  // The services stop before the database they drain into.
  const stopAll = async (): Promise<void> => {
    await stopProcesses(started.filter((s) => s.name !== "database"));
    await stopProcesses(started.filter((s) => s.name === "database"));
    rmSync(dataDir, { recursive: true, force: true });
  };
  const stop = async (): Promise<void> => {
    await stopAll();
    lines.assertEachKeyOnce();
  };

  const walletGrpc: number[] = [];
  const walletAdmin: string[] = [];
  const engineGrpc: number[] = [];
  const engineAdminPort: number[] = [];
  const gateways: GatewayEndpoints[] = [];
  try {
    for (const wallet of wallets) {
      const line = await wallet.listening;
      walletGrpc.push(portOf(line, "grpcPort"));
      walletAdmin.push(`http://127.0.0.1:${portOf(line, "adminPort")}`);
    }
    engineEnvs.forEach((env, index) => {
      env.WALLET_GRPC_TARGET = `127.0.0.1:${walletGrpc[0] ?? 0}`;
      engines[index] = launch(engineName(index), "engine/main.ts", env);
    });
    for (const engine of engines) {
      const line = await (engine as Started).listening;
      engineGrpc.push(portOf(line, "grpcPort"));
      engineAdminPort.push(portOf(line, "adminPort"));
    }
    const targets = engineGrpc.map((port) => `127.0.0.1:${port}`);
    for (const index of options.successors ?? []) {
      const port = await freePort();
      const env = {
        ...engineEnvs[index],
        ENGINE_GRPC_PORT: String(port),
        ENGINE_METRICS_PORT: String(await freePort()),
      };
      successors.set(index, launch(`${engineName(index)}-successor`, "engine/main.ts", env));
      targets[index] = `${targets[index] ?? ""}|127.0.0.1:${port}`;
    }
    for (let i = 0; i < (options.standbys ?? 0); i++) {
      const port = await freePort();
      const env = { ...engineEnvs[0], ENGINE_ROLE: "standby", ENGINE_GRPC_PORT: String(port) };
      standbys.push(
        launch(`engine-standby-${i}`, "engine/main.ts", { ...env, ENGINE_METRICS_PORT: String(await freePort()) }),
      );
      targets.forEach((entry, index) => (targets[index] = `${entry}|127.0.0.1:${port}`));
    }
    const launched = Array.from({ length: options.gateways ?? 1 }, (_, i) =>
      launch(`gateway-${i}`, "gateway/main.ts", {
        ...common,
        ...options.gatewayEnv,
        HTTP_PORT: "0",
        WALLET_HTTP_PORT: "0",
        WALLET_GRPC_TARGET: `127.0.0.1:${walletGrpc[i % walletCount] ?? 0}`,
        ENGINE_GRPC_TARGET: (targets[0] ?? "").split("|")[0] ?? "",
        ...(engineCount > 1 ? { ENGINE_GRPC_TARGETS: targets.join(",") } : {}),
      }),
    );
    for (const gateway of launched) {
      const line = await gateway.listening;
      gateways.push({
        v1: `http://127.0.0.1:${portOf(line, "httpPort")}`,
        api: `http://127.0.0.1:${portOf(line, "walletHttpPort")}`,
      });
    }
  } catch (error) {
    await stopAll();
    throw error;
  }

  const engineHealth = (index: number): string => `http://127.0.0.1:${engineAdminPort[index] ?? 0}/healthz`;
  const killEngine = async (index: number, signal: NodeJS.Signals = "SIGKILL"): Promise<number | null> => {
    const old = engines[index];
    if (old === undefined) throw new Error(`engine ${index} never started`);
    if (old.child.exitCode !== null || old.child.signalCode !== null) return old.child.exitCode;
    return new Promise<number | null>((resolve) => {
      old.child.once("exit", (code) => {
        resolve(code);
      });
      old.child.kill(signal);
    });
  };
  const restarting = new Map<number, Promise<void>>();
  const restartEngine = async (restart: RestartOptions = {}): Promise<void> => {
    const index = restart.index ?? 0;
    if (restarting.has(index)) throw new Error(`engine ${index} is already being restarted`);
    const run = async (): Promise<void> => {
      const old = engines[index];
      await killEngine(index, restart.signal ?? "SIGKILL");
      const at = old === undefined ? -1 : started.indexOf(old);
      if (at >= 0) started.splice(at, 1);
      const engine = launch(engineName(index), "engine/main.ts", { ...engineEnvs[index], ...restart.env });
      engines[index] = engine;
      await engine.listening;
      await waitHttp(engineHealth(index), restart.timeoutMs ?? 120_000, output);
    };
    const running = run();
    restarting.set(index, running);
    try {
      await running;
    } finally {
      restarting.delete(index);
    }
  };

  try {
    const waits = [
      ...walletAdmin.map((url) => waitHttp(`${url}/readyz`, 120_000, output)),
      ...engineAdminPort.map((_, index) => waitHttp(engineHealth(index), 120_000, output)),
    ];
    await Promise.all(waits);
    await Promise.all(gateways.map((g) => waitHttp(`${g.v1}/readyz`, 120_000, output)));
  } catch (error) {
    await stopAll();
    throw error;
  }

  return {
    gateways,
    walletAdmin,
    walletGrpc: walletGrpc.map((port) => `127.0.0.1:${port}`),
    engineAdmin: `http://127.0.0.1:${engineAdminPort[0] ?? 0}`,
    engineGrpc: `127.0.0.1:${engineGrpc[0] ?? 0}`,
    engineAdmins: engineAdminPort.map((port) => `http://127.0.0.1:${port}`),
    engineGrpcs: engineGrpc.map((port) => `127.0.0.1:${port}`),
    dataDir,
    databaseUrl: common.DATABASE_URL ?? "",
    output,
    restartEngine,
    killEngine,
    async successorListening(index) {
      const successor = successors.get(index);
      if (successor === undefined) throw new Error(`engine ${index} has no successor`);
      await successor.listening;
    },
    async standbyListening(i) {
      const standby = standbys[i];
      if (standby === undefined) throw new Error(`no standby ${i}`);
      return standby.listening;
    },
    stop,
  };
}
