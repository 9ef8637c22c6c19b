// The test stack's options and handle (test/harness/stack.ts starts it).

export interface StackOptions {
  /**
   * Omit for the embedded PGlite default: one database process (scripts/embedded-database.ts) that every
   * wallet and engine shares, as under `npm start`.
   */
  databaseUrl?: string;
  redisUrl?: string;
  wallets?: number;
  gateways?: number;
  /** Engine processes sharing the database (needs databaseUrl when more than one). Default 1. */
  engines?: number;
  /** Extra settings for every process. */
  env?: Record<string, string>;
  /** Extra settings for the gateways only. */
  gatewayEnv?: Record<string, string>;
  /** Extra settings for the wallets only. */
  walletEnv?: Record<string, string>;
  /** Extra settings for wallet i only (entry i, on top of `walletEnv`). */
  walletEnvs?: Record<string, string>[];
  /** Extra settings for the engine only. */
  engineEnv?: Record<string, string>;
  /**
   * Engine indexes that get a successor: a second engine process of that index on its own ports, started once
   * the engines listen (it waits for their leases, docs/scale-out.md "Hand-over"), and listed after the engine
   * in the gateways' ENGINE_GRPC_TARGETS entry (`engine|successor`).
   */
  successors?: number[];
  /**
   * The successors' ports are reserved and listed in the gateways' targets, but their processes start only on
   * `startEngine(index, 1)` (a deploy that brings the new process up just before the old one stops).
   */
  deferSuccessors?: boolean;
  /** Gateways listen on ports chosen outside the ephemeral range, so `restartGateway` can reuse them. */
  restartableGateways?: boolean;
  /**
   * Standby engines (ENGINE_ROLE=standby, docs/scale-out.md "Standbys"), started once the engines listen, each
   * listed after the engine (and its successor) in every entry of the gateways' ENGINE_GRPC_TARGETS.
   */
  standbys?: number;
  /**
   * Every engine process (owners and standbys) is listed in every entry of the gateways' ENGINE_GRPC_TARGETS,
   * the entry's owner first: any of them may come to serve any index (a standby, or an owner started again as
   * one by `relaunchAsStandby`).
   */
  pooledEngines?: boolean;
}

export interface GatewayEndpoints {
  /** Base URL of the /v1 listener, e.g. http://127.0.0.1:1234 */
  v1: string;
  /** Base URL of the /api listener. */
  api: string;
}

export interface Stack {
  gateways: GatewayEndpoints[];
  walletAdmin: string[];
  /** host:port of each wallet's gRPC listener (wallet.v1). */
  walletGrpc: string[];
  /** Engine 0's admin listener (/healthz, /readyz, /metrics). */
  engineAdmin: string;
  /** host:port of engine 0's gRPC listener (engine.v1, market.v1). */
  engineGrpc: string;
  /** Every engine's admin listener, index k being engine k. */
  engineAdmins: string[];
  /** Every engine's gRPC listener, index k being engine k. */
  engineGrpcs: string[];
  dataDir: string;
  /** The database every process shares: the PostgreSQL given, or the embedded one's URL. */
  databaseUrl: string;
  /** Everything every process wrote to stdout and stderr so far. */
  output(): string;
  /** The lines process `name` printed so far (`engine`, `engine-1-successor`, `gateway-0`; restarts included). */
  linesOf(name: string): string[];
  /**
   * Stops the engine process with `signal` (default SIGKILL: a crash, nothing drained) and starts a new one
   * with the same settings, database and ports; resolves once the new one answers /healthz.
   */
  restartEngine(options?: RestartOptions): Promise<void>;
  /**
   * Stops engine `index` with `signal` (default SIGKILL) and resolves with its exit code (null when killed by a
   * signal) once it exited; nothing restarts it.
   */
  killEngine(index: number, signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves once the successor of engine `index` (`successors`) listens: it holds the partitions. */
  successorListening(index: number): Promise<void>;
  /**
   * Resolves with the "engine listening" line of engine process `name` (`engine-1`, `engine-standby-0`) as it
   * runs now: its `engine` is the index it serves (a standby's, the index it took).
   */
  listeningOf(name: string): Promise<Record<string, unknown>>;
  /** Sends `signal` to engine process `name`; resolves with its exit code once it exited. */
  signalNamed(name: string, signal: NodeJS.Signals): Promise<number | null>;
  /**
   * Starts engine process `name` (stopped) again on its ports as a standby (ENGINE_ROLE=standby); resolves once
   * it waits for an engine whose leases lapse.
   */
  relaunchAsStandby(name: string): Promise<void>;
  /** Resolves with standby `i`'s "engine listening" log line (its `engine` is the index it took). */
  standbyListening(i: number): Promise<Record<string, unknown>>;
  /**
   * Starts process `slot` of engine `index` (0: the engine, 1: its successor) with its usual settings and ports,
   * unless it runs (it listens only once it holds the leases: `engineListening`).
   */
  startEngine(index: number, slot: 0 | 1): void;
  /** Resolves once process `slot` of engine `index` listens (it holds the partitions). */
  engineListening(index: number, slot: 0 | 1): Promise<void>;
  /** Sends `signal` to process `slot` of engine `index`; resolves with its exit code once it exited. */
  signalEngine(index: number, slot: 0 | 1, signal: NodeJS.Signals): Promise<number | null>;
  /**
   * Stops gateway `index` with `signal` (default SIGTERM) and starts it again on the same ports
   * (`restartableGateways`); resolves with the old one's exit code once the new one listens.
   */
  restartGateway(index: number, signal?: NodeJS.Signals): Promise<number | null>;
  /**
   * Stops every process; then rejects, naming the process, key and line, if any JSON log line any of them
   * printed wrote a key twice.
   */
  stop(): Promise<void>;
}

export interface RestartOptions {
  /** Which engine (default 0). An engine already killed is only started. */
  index?: number;
  signal?: NodeJS.Signals;
  /** Settings for the new engine process only, on top of the usual ones. */
  env?: Record<string, string>;
  /** How long to wait for the new engine's /healthz (default 120 s). */
  timeoutMs?: number;
}
