// Starts the real processes (wallet(s), engine(s), gateway(s)) on random loopback ports, as `npm start` would,
// and keeps everything they print so tests can inspect the logs; stopping the stack fails if a JSON log line
// wrote a key twice (test/harness/log-lines.ts). Gateway i talks to wallet i % wallets and to
// every engine (engine k with ENGINE_INDEX=k of ENGINE_COUNT, docs/scale-out.md).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./ports.js";
import { Processes, portOf, signalProcess, stopProcesses, waitHttp, type Started } from "./processes.js";

export type { GatewayEndpoints, RestartOptions, Stack, StackOptions } from "./stack-options.js";
import type { GatewayEndpoints, RestartOptions, Stack, StackOptions } from "./stack-options.js";

/** Engine 0 keeps the name "engine" (tests look for it in the logs). */
const engineName = (index: number): string => (index === 0 ? "engine" : `engine-${index}`);

/** The name of process `slot` of engine `index` in the logs (0: the engine, 1: its successor). */
export const engineProcessName = (index: number, slot: 0 | 1): string =>
  `${engineName(index)}${slot === 0 ? "" : "-successor"}`;

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "fts-stack-"));
  const processes = new Processes();
  const started = processes.started;
  const lines = processes.lines;
  const output = (): string => processes.output();
  const launch = (name: string, entry: string, env: Record<string, string>): Started =>
    processes.launch(name, entry, env);

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
  const successorEnvs = new Map<number, Record<string, string>>();
  const standbys: Started[] = [];
  /** Each owner and standby process by name, with its settings (`relaunchAsStandby` starts it again). */
  const named = new Map<string, { process: Started; env: Record<string, string> }>();
  const gatewayEnvs: Record<string, string>[] = [];
  const gatewayProcesses: Started[] = [];
  const slotOf = (index: number, slot: 0 | 1): Started | undefined =>
    slot === 0 ? engines[index] : successors.get(index);
  const startEngine = (index: number, slot: 0 | 1): void => {
    const running = slotOf(index, slot);
    if (running !== undefined && running.child.exitCode === null && running.child.signalCode === null) return;
    const env = slot === 0 ? engineEnvs[index] : successorEnvs.get(index);
    if (env === undefined) throw new Error(`engine ${index} has no process ${slot}`);
    if (running !== undefined) processes.forget(running);
    const engine = launch(engineProcessName(index, slot), "engine/main.ts", env);
    if (slot === 0) engines[index] = engine;
    else successors.set(index, engine);
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
      named.set(engineName(index), { process: engines[index], env });
    });
    for (const engine of engines) {
      const line = await (engine as Started).listening;
      engineGrpc.push(portOf(line, "grpcPort"));
      engineAdminPort.push(portOf(line, "adminPort"));
    }
    const targets = engineGrpc.map((port) => `127.0.0.1:${port}`);
    for (const index of options.successors ?? []) {
      const port = await freePort();
      successorEnvs.set(index, {
        ...engineEnvs[index],
        ENGINE_GRPC_PORT: String(port),
        ENGINE_METRICS_PORT: String(await freePort()),
      });
      if (options.deferSuccessors !== true) startEngine(index, 1);
      targets[index] = `${targets[index] ?? ""}|127.0.0.1:${port}`;
    }
    for (let i = 0; i < (options.standbys ?? 0); i++) {
      const port = await freePort();
      const env = {
        ...engineEnvs[0],
        ENGINE_ROLE: "standby",
        ENGINE_GRPC_PORT: String(port),
        ENGINE_METRICS_PORT: String(await freePort()),
      };
      const standby = launch(`engine-standby-${i}`, "engine/main.ts", env);
      standbys.push(standby);
      named.set(`engine-standby-${i}`, { process: standby, env });
      targets.forEach((entry, index) => (targets[index] = `${entry}|127.0.0.1:${port}`));
    }
    if (options.pooledEngines === true) {
      const all = [...named.values()].map(({ env }) => `127.0.0.1:${env.ENGINE_GRPC_PORT ?? ""}`);
      targets.forEach((entry, index) => {
        const own = entry.split("|")[0] ?? "";
        targets[index] = [own, ...all.filter((target) => target !== own)].join("|");
      });
    }
    for (let i = 0; i < (options.gateways ?? 1); i++) {
      const fixed = options.restartableGateways === true;
      gatewayEnvs.push({
        ...common,
        // No load balancer routes away from a test's gateway: no drain phase unless a test asks for one.
        GATEWAY_DRAIN_DELAY_MS: "0",
        ...options.gatewayEnv,
        HTTP_PORT: fixed ? String(await freePort()) : "0",
        WALLET_HTTP_PORT: fixed ? String(await freePort()) : "0",
        WALLET_GRPC_TARGET: `127.0.0.1:${walletGrpc[i % walletCount] ?? 0}`,
        ENGINE_GRPC_TARGET: (targets[0] ?? "").split("|")[0] ?? "",
        ...(engineCount > 1 || successorEnvs.size > 0 || standbys.length > 0
          ? { ENGINE_GRPC_TARGETS: targets.join(",") }
          : {}),
      });
    }
    const launched = gatewayEnvs.map((env, i) => launch(`gateway-${i}`, "gateway/main.ts", env));
    gatewayProcesses.push(...launched);
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
    return signalProcess(old, signal);
  };
  const restarting = new Map<number, Promise<void>>();
  const restartEngine = async (restart: RestartOptions = {}): Promise<void> => {
    const index = restart.index ?? 0;
    if (restarting.has(index)) throw new Error(`engine ${index} is already being restarted`);
    const run = async (): Promise<void> => {
      const old = engines[index];
      await killEngine(index, restart.signal ?? "SIGKILL");
      if (old !== undefined) processes.forget(old);
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
    linesOf: (name) => lines.printed.filter((printed) => printed.process === name).map((printed) => printed.line),
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
    listeningOf(name) {
      const entry = named.get(name);
      if (entry === undefined) throw new Error(`no engine process ${name}`);
      return entry.process.listening;
    },
    signalNamed(name, signal) {
      const entry = named.get(name);
      if (entry === undefined) throw new Error(`no engine process ${name}`);
      return signalProcess(entry.process, signal);
    },
    async relaunchAsStandby(name) {
      const entry = named.get(name);
      if (entry === undefined) throw new Error(`no engine process ${name}`);
      const waiting = (): number =>
        lines.printed.filter((p) => p.process === name && p.line.includes("standby waiting for an engine")).length;
      const before = waiting();
      processes.forget(entry.process);
      const env = { ...entry.env, ENGINE_ROLE: "standby" };
      const relaunched = launch(name, "engine/main.ts", env);
      named.set(name, { process: relaunched, env });
      while (waiting() === before) {
        if (relaunched.child.exitCode !== null) throw new Error(`${name} exited as a standby\n${output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    startEngine,
    async engineListening(index, slot) {
      const engine = slotOf(index, slot);
      if (engine === undefined) throw new Error(`engine ${index} has no process ${slot}`);
      await engine.listening;
    },
    signalEngine(index, slot, signal) {
      const engine = slotOf(index, slot);
      if (engine === undefined) throw new Error(`engine ${index} has no process ${slot}`);
      return signalProcess(engine, signal);
    },
    async restartGateway(index, signal = "SIGTERM") {
      const old = gatewayProcesses[index];
      const env = gatewayEnvs[index];
      if (old === undefined || env === undefined || env.HTTP_PORT === "0")
        throw new Error(`gateway ${index} cannot be restarted (restartableGateways)`);
      const code = await signalProcess(old, signal);
      processes.forget(old);
      const gateway = launch(`gateway-${index}`, "gateway/main.ts", env);
      gatewayProcesses[index] = gateway;
      await gateway.listening;
      return code;
    },
    stop,
  };
}
