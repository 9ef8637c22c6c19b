// Command line of `npm run load` (see load-tests/README.md).
import { isScenario, SCENARIOS, type Scenario } from "./schedule.js";

/** "180s", "3m", "1500ms", "1h", or a bare number of seconds → ms. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (match === null) throw new Error(`bad duration "${text}" (use e.g. 500ms, 30s, 3m, 1h)`);
  const value = Number(match[1]);
  const unit = match[2] ?? "s";
  const scale = unit === "ms" ? 1 : unit === "s" ? 1000 : unit === "m" ? 60_000 : 3_600_000;
  const ms = Math.round(value * scale);
  if (ms <= 0) throw new Error(`duration must be positive: "${text}"`);
  return ms;
}

export interface LoadArgs {
  scenario: Scenario;
  keys: number;
  /** Requests per minute per key. */
  rate: number;
  durationMs: number;
  /** Sent first at the same rates, left out of the figures (0). */
  warmupMs: number;
  /** Base URL of a running stack's /v1; unset: the driver starts its own stack. */
  target: string | undefined;
  /** Base URL of the running stack's /api (default: the target's port + 1). */
  api: string | undefined;
  adminToken: string | undefined;
  /** host:port of the engine's market.v1, to push prices to a running stack started with PRICE_FEED=push. */
  engineGrpc: string | undefined;
  backend: "postgres" | "pglite";
  redis: boolean;
  /** The limit and window the target enforces; given to the gateway when the driver starts the stack. */
  limit: number;
  windowMs: number;
  /** RATE_LIMIT_MAX_DELAY_MS: how long the target holds a request for a slot about to free (0: never). */
  maxDelayMs: number;
  spikeBase: number;
  symbols: string[];
  /** A provisioning file (npm run load:provision) to use instead of creating keys. */
  keysFile: string | undefined;
  out: string | undefined;
  drainMs: number;
  /** Most sockets the client opens (default 4 per key, like the k6 scripts' 4 VUs per key, at least 16). */
  connections: number;
}

const DEFAULTS: Record<Scenario, { keys: number; rate: number; durationMs: number }> = {
  "per-key": { keys: 60, rate: 1200, durationMs: 180_000 },
  "over-limit": { keys: 1, rate: 1300, durationMs: 180_000 },
  spike: { keys: 60, rate: 1200, durationMs: 180_000 },
  soak: { keys: 30, rate: 1200, durationMs: 1_800_000 },
};

export const USAGE = `npm run load -- --scenario <${SCENARIOS.join("|")}> [options]
  (--scenario overload has options of its own: npm run load -- --scenario overload --help)
  --keys N            keys, each with its own user and account (per-key/spike 60, over-limit 1, soak 30)
  --rate N            requests per minute per key (1200; over-limit 1300)
  --duration D        30s, 3m, ... (180s; soak 30m)
  --warmup D          first run this long at the same rates, left out of the figures (0)
  --target URL        a running stack's /v1 base URL (default: start one on PostgreSQL + Redis)
  --api URL           its /api base URL (default: the target's port + 1)
  --admin-token T     its WALLET_ADMIN_TOKEN
  --engine-grpc H:P   push prices to it through market.v1 (a stack with PRICE_FEED=push)
  --backend B         postgres (default) or embedded (alias pglite: the embedded default database that
                      npm start uses, one process shared by every service), when the driver starts the stack
  --no-redis          start the stack without Redis (limits in process)
  --limit N           rate limit per key per window (1200); given to a stack the driver starts
  --window D          the rate-limit window (60s); same
  --max-delay D       longest hold for a slot about to free, 0 to refuse at once (100ms); same
  --spike-base F      spike: share of the keys active outside the middle third (0.2)
  --symbols A,B       symbols traded, one per key round-robin (BTC-USD,ETH-USD)
  --keys-file F       use keys from a provisioning file instead of creating them
  --out F             JSON results (bench/load-<scenario>.json)
  --drain D           wait at most this long for answers after the last send (10s)
  --connections N     most sockets open at once (4 per key, at least 16); beyond, requests wait for one`;

export function parseArgs(argv: readonly string[]): LoadArgs {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (!arg.startsWith("--")) throw new Error(`unexpected argument "${arg}"\n${USAGE}`);
    const eq = arg.indexOf("=");
    if (eq > 0) {
      values.set(arg.slice(2, eq), arg.slice(eq + 1));
      continue;
    }
    const name = arg.slice(2);
    if (name === "no-redis" || name === "help") {
      flags.add(name);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("--")) throw new Error(`--${name} needs a value\n${USAGE}`);
    values.set(name, value);
    i++;
  }
  if (flags.has("help")) throw new Error(USAGE);
  const known = new Set([
    "scenario",
    "keys",
    "rate",
    "duration",
    "warmup",
    "target",
    "api",
    "admin-token",
    "engine-grpc",
    "backend",
    "limit",
    "window",
    "max-delay",
    "spike-base",
    "symbols",
    "keys-file",
    "out",
    "drain",
    "connections",
  ]);
  for (const name of values.keys()) if (!known.has(name)) throw new Error(`unknown option --${name}\n${USAGE}`);

  const scenario = values.get("scenario");
  if (scenario === undefined || !isScenario(scenario)) throw new Error(`--scenario is required\n${USAGE}`);
  const defaults = DEFAULTS[scenario];
  const positive = (name: string, fallback: number, integer: boolean): number => {
    const raw = values.get(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!(value > 0) || (integer && !Number.isInteger(value))) throw new Error(`--${name} must be a positive number`);
    return value;
  };
  const backendName = values.get("backend") ?? "postgres";
  const backend = backendName === "embedded" ? "pglite" : backendName;
  if (backend !== "postgres" && backend !== "pglite") throw new Error("--backend is postgres or embedded");
  const spikeBase = Number(values.get("spike-base") ?? "0.2");
  if (!(spikeBase > 0 && spikeBase <= 1)) throw new Error("--spike-base must be in (0, 1]");
  const duration = values.get("duration");
  const window = values.get("window");
  const drain = values.get("drain");
  const warmup = values.get("warmup");
  const maxDelay = values.get("max-delay");
  const keys = positive("keys", defaults.keys, true);
  const windowMs = window === undefined ? 60_000 : parseDuration(window);
  const maxDelayMs = maxDelay === undefined ? 100 : maxDelay === "0" ? 0 : parseDuration(maxDelay);
  if (!Number.isInteger(maxDelayMs) || maxDelayMs >= windowMs) {
    throw new Error("--max-delay must be a whole number of ms below --window");
  }
  return {
    scenario,
    keys,
    rate: positive("rate", defaults.rate, false),
    durationMs: duration === undefined ? defaults.durationMs : parseDuration(duration),
    warmupMs: warmup === undefined || warmup === "0" ? 0 : parseDuration(warmup),
    target: values.get("target")?.replace(/\/+$/, ""),
    api: values.get("api")?.replace(/\/+$/, ""),
    adminToken: values.get("admin-token"),
    engineGrpc: values.get("engine-grpc"),
    backend,
    redis: !flags.has("no-redis"),
    limit: positive("limit", 1200, true),
    windowMs,
    maxDelayMs,
    spikeBase,
    symbols: (values.get("symbols") ?? "BTC-USD,ETH-USD")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
    keysFile: values.get("keys-file"),
    out: values.get("out"),
    drainMs: drain === undefined ? 10_000 : parseDuration(drain),
    connections: positive("connections", Math.max(16, keys * 4), true),
  };
}

/** The /api base URL next to a /v1 base URL: same host, port + 1 (the defaults are 8080 and 8081). */
export function defaultApi(target: string): string {
  const url = new URL(target);
  const port = Number(url.port === "" ? (url.protocol === "https:" ? 443 : 80) : url.port);
  url.port = String(port + 1);
  return url.origin;
}
