// `npm run bench:validate`: how fast the wallet answers key validations.
//   1. In process: WalletService.validate() (real KeyIndex, hashing, allow-lists, metrics hook) over 1,000
//      keys created through the real create() path on an embedded PGlite, for a mix of valid calls,
//      wrong secrets and IP/scope denials; several timed rounds, reported as median and min/max.
//   2. Over gRPC on loopback: the real wallet (`startWallet`) in a child process, next to an empty unary
//      method in the same process as the baseline, with PGlite hosted by a third process as `npm start`
//      does. Rounds alternate empty/validate (ABBA) for one call in flight and for 16 and 64 in flight; each
//      round also records both processes' CPU time and GC pauses. Rounds are short (0.1–0.25 s) and many. The verdict of a mode is the pooled ratio:
//      the p99 of all its ValidateApiKey calls over the p99 of all its empty calls, every round together (a
//      round's own p99 rests on its 10–30 slowest calls, a handful of stalls, so it scatters; the pooled p99
//      rests on hundreds). Beside it: the pooled ratio of each half of the rounds and the spread of the
//      rounds' own ratios. A last sequential mode alternates the two methods call by call, a cross-check that
//      load from elsewhere on the machine cannot bias.
// Prints a table and writes bench/validate-results.json. Keys and secrets stay in memory; nothing prints them.
// `--only=in-process` or `--only=grpc` runs one part and prints its JSON (for profiling; no report file).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { openDatabase } from "../kernel/db.js";
import { CHANNEL_OPTIONS, outgoingMetadata } from "../kernel/grpc.js";
import { createLogger } from "../kernel/log.js";
import { createRegistry } from "../kernel/metrics.js";
import { isEntryPoint } from "../kernel/process.js";
import { migrate, readMigrations } from "../kernel/migrate.js";
import { createWalletClient } from "../kernel/wallet-codec.js";
import type { CreateApiKeyResponse__Output } from "../proto/gen/wallet/v1/CreateApiKeyResponse.js";
import type { ValidateApiKeyResponse__Output } from "../proto/gen/wallet/v1/ValidateApiKeyResponse.js";
import { KeyIndex } from "../wallet/key-index.js";
import { Sealer, masterKeyFromBase64 } from "../wallet/keys/sealed.js";
import { validationMetrics } from "../wallet/metrics.js";
import type { Scope } from "../kernel/scopes.js";
import { InProcessRevocationBus } from "../wallet/revocation-bus.js";
import { WalletService, type Denial, type ValidateInput } from "../wallet/service.js";
import { KeyStore } from "../wallet/store.js";
import {
  EMPTY_METHOD_PATH,
  resourceMeter,
  type ParentMessage,
  type ResourceSample,
  type ServerMessage,
} from "./bench-validate-server.js";
import { rawBytes } from "./bench-child.js";
import { mulberry32 as seeded } from "../kernel/random.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SERVER_SCRIPT = path.join(ROOT, "scripts", "bench-validate-server.ts");
const MIGRATIONS = path.join(ROOT, "wallet", "migrations");
const RESULTS_FILE = path.join(ROOT, "bench", "validate-results.json");

const USERS = 100;
const KEYS_PER_USER = 10;
const PROBES = 1 << 16;
const MIX = { valid: 0.7, wrong_secret: 0.1, ip_denied: 0.1, scope_denied: 0.1 } as const;

const IN_PROCESS = { warmupMs: 1_500, roundMs: 2_000, rounds: 7 };
/**
 * Calls per round and rounds per method. Short rounds, many of them, in the order empty/validate,
 * validate/empty (ABBA): whatever else the machine does at a given moment, and whatever recurs every second or
 * so (a timer, a GC cycle), then lands on both methods alike. A sequential round lasts ~0.1 s, one in flight
 * ~0.15–0.25 s. 40,000 (sequential) to 120,000 (64 in flight) calls of each method under its pooled p99.
 */
const GRPC_MODES = [
  { name: "sequential", concurrency: 1, calls: 250, rounds: 160 },
  { name: "16 in flight", concurrency: 16, calls: 1_000, rounds: 80 },
  { name: "64 in flight", concurrency: 64, calls: 1_500, rounds: 80 },
] as const;
/** Warm-up calls per method and mode before any round, alternating the methods this many times. */
const WARMUP = { calls: 2_000, passes: 2 };
const DEADLINE_MS = 10_000;
/** The cross-check: rounds of `pairs` empty + validate calls, alternating one by one. */
const ALTERNATING = { rounds: 8, pairs: 1_000 };

export const TARGET_IN_PROCESS_PER_SECOND = 200_000;
export const TARGET_P99_RATIO = 1.2;

// ---------------------------------------------------------------- keys and the request mix

type Kind = keyof typeof MIX;

interface KeyShape {
  permissions: Scope[];
  ipWhitelist: string[];
  /** Addresses the allow-list accepts (any address when the list is empty). */
  allowedIps: string[];
}

interface BenchKey extends KeyShape {
  key: string;
  secret: string;
}

interface Probe {
  input: ValidateInput;
  kind: Kind;
  expected: "valid" | Denial;
}

const OUTSIDE_IP = "203.0.113.9";
const PERMISSION_SETS: Scope[][] = [["READ_ONLY"], ["TRADE"], ["MANAGE_ORDERS"], ["READ_ONLY", "TRADE"]];
const ALLOW_LISTS: { ipWhitelist: string[]; allowedIps: string[] }[] = [
  { ipWhitelist: [], allowedIps: [OUTSIDE_IP, "10.1.2.3", "2001:db8::7"] },
  { ipWhitelist: ["10.0.0.0/8", "192.168.1.7"], allowedIps: ["10.20.30.40", "192.168.1.7", "::ffff:10.9.8.7"] },
  {
    ipWhitelist: ["2001:db8::/32", "::ffff:172.16.0.0/108", "198.51.100.0/24"],
    allowedIps: ["2001:db8::42", "172.16.5.4", "198.51.100.77"],
  },
];

function keyShape(n: number): KeyShape {
  const permissions = PERMISSION_SETS[n % PERMISSION_SETS.length] ?? ["READ_ONLY"];
  const allow = ALLOW_LISTS[n % ALLOW_LISTS.length] ?? { ipWhitelist: [], allowedIps: [OUTSIDE_IP] };
  return { permissions, ...allow };
}

function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

const hasManage = (key: BenchKey): boolean => key.permissions.includes("MANAGE_ORDERS");

function makeProbes(keys: readonly BenchKey[], count: number, seed: number): Probe[] {
  const random = seeded(seed);
  const restricted = keys.filter((k) => k.ipWhitelist.length > 0);
  const notManaging = keys.filter((k) => !hasManage(k));
  const probes: Probe[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    let kind: Kind;
    if (roll < MIX.valid) kind = "valid";
    else if (roll < MIX.valid + MIX.wrong_secret) kind = "wrong_secret";
    else if (roll < MIX.valid + MIX.wrong_secret + MIX.ip_denied) kind = "ip_denied";
    else kind = "scope_denied";
    if (kind === "valid") {
      const key = pick(keys, random);
      const top = hasManage(key) ? "MANAGE_ORDERS" : key.permissions.includes("TRADE") ? "TRADE" : "READ_ONLY";
      const permission = pick(["", "READ_ONLY", top], random);
      probes.push({
        input: { key: key.key, secret: key.secret, ip: pick(key.allowedIps, random), permission },
        kind,
        expected: "valid",
      });
    } else if (kind === "wrong_secret") {
      const key = pick(keys, random);
      const secret = "svc_sk_" + randomBytes(24).toString("hex");
      probes.push({
        input: { key: key.key, secret, ip: pick(key.allowedIps, random), permission: "READ_ONLY" },
        kind,
        expected: "unauthorized",
      });
    } else if (kind === "ip_denied") {
      const key = pick(restricted, random);
      probes.push({
        input: { key: key.key, secret: key.secret, ip: OUTSIDE_IP, permission: "READ_ONLY" },
        kind,
        expected: "ip_not_whitelisted",
      });
    } else {
      const key = pick(notManaging, random);
      probes.push({
        input: { key: key.key, secret: key.secret, ip: pick(key.allowedIps, random), permission: "MANAGE_ORDERS" },
        kind,
        expected: "permission_denied",
      });
    }
  }
  return probes;
}

/** Runs `task(i)` for i in 0..count-1 with at most `limit` in flight. */
async function inParallel(count: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

const userId = (u: number): string => `bench-user-${String(u).padStart(3, "0")}`;

async function createKeys(
  create: (user: string, shape: KeyShape, label: string) => Promise<{ key: string; secret: string }>,
): Promise<BenchKey[]> {
  const keys: BenchKey[] = [];
  // One user's keys in order (the limit of 10 is checked under a per-user lock); users in parallel.
  await inParallel(USERS, 4, async (u) => {
    for (let j = 0; j < KEYS_PER_USER; j++) {
      const shape = keyShape(u * KEYS_PER_USER + j);
      const { key, secret } = await create(userId(u), shape, `bench ${j}`);
      keys.push({ ...shape, key, secret });
    }
  });
  return keys;
}

// ---------------------------------------------------------------- statistics

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? NaN;
}

const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

// ---------------------------------------------------------------- 1. in process

export interface InProcessResult {
  keys: number;
  mix: typeof MIX;
  roundMs: number;
  rounds: number[];
  medianPerSecond: number;
  minPerSecond: number;
  maxPerSecond: number;
  nsPerValidation: number;
}

export async function benchInProcess(): Promise<InProcessResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-validate-inproc-"));
  const log = createLogger("wallet", "error");
  const db = await openDatabase({ url: undefined, dataDir, embeddedName: "pglite-wallet", poolSize: 10, log });
  try {
    await migrate(db.pool, "wallet", readMigrations(MIGRATIONS));
    // The same wiring as wallet/main.ts, metrics hook included: it runs on every validation.
    const onValidation = validationMetrics(createRegistry("wallet"));
    const store = new KeyStore(db.pool);
    const now = (): number => Date.now();
    const index = new KeyIndex({ load: (hash) => store.findByHash(hash), now });
    const bus = new InProcessRevocationBus();
    const service = new WalletService({
      store,
      index,
      bus,
      sealer: new Sealer(masterKeyFromBase64(randomBytes(32).toString("base64"))),
      log,
      now,
      onValidation,
    });
    await bus.ready();
    await service.warm();

    const createStarted = performance.now();
    const keys = await createKeys(async (user, shape, label) => {
      const created = await service.create(user, {
        label,
        permissions: shape.permissions,
        ip_whitelist: shape.ipWhitelist,
      });
      return { key: created.key, secret: created.secret };
    });
    process.stdout.write(
      `in process: created ${keys.length} keys for ${USERS} users in ${((performance.now() - createStarted) / 1000).toFixed(1)} s\n`,
    );

    const probes = makeProbes(keys, PROBES, 1);
    // Every probe must get the answer the mix intends, or the numbers would measure something else.
    for (const probe of probes) {
      const result = await service.validate(probe.input);
      const outcome = result.valid ? "valid" : result.code;
      if (outcome !== probe.expected) throw new Error(`in process: ${probe.kind} probe answered ${outcome}`);
    }
    const inputs = probes.map((p) => p.input);

    const drive = async (ms: number): Promise<number> => {
      const mask = inputs.length - 1;
      let done = 0;
      const started = performance.now();
      let now = started;
      while (now - started < ms) {
        for (let k = 0; k < 1_024; k++) {
          const input = inputs[done & mask];
          if (input === undefined) throw new Error("no probe");
          await service.validate(input);
          done++;
        }
        now = performance.now();
      }
      return done / ((now - started) / 1000);
    };

    await drive(IN_PROCESS.warmupMs);
    const rounds: number[] = [];
    for (let r = 0; r < IN_PROCESS.rounds; r++) rounds.push(await drive(IN_PROCESS.roundMs));
    const med = median(rounds);
    return {
      keys: keys.length,
      mix: MIX,
      roundMs: IN_PROCESS.roundMs,
      rounds: rounds.map((r) => Math.round(r)),
      medianPerSecond: Math.round(med),
      minPerSecond: Math.round(Math.min(...rounds)),
      maxPerSecond: Math.round(Math.max(...rounds)),
      nsPerValidation: Math.round(1e9 / med),
    };
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- 2. over gRPC

interface Child {
  process: ChildProcess;
  /** CPU time and GC pauses of the child so far (wallet role only). */
  sample(): Promise<ResourceSample>;
  stop(): Promise<void>;
}

async function startChild<T extends ServerMessage["type"]>(
  role: "db" | "wallet",
  env: NodeJS.ProcessEnv,
  ready: T,
): Promise<{ child: Child; message: Extract<ServerMessage, { type: T }> }> {
  // For profiling the wallet process, e.g. BENCH_WALLET_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
  const extra = role === "wallet" ? (process.env.BENCH_WALLET_NODE_ARGS ?? "").split(" ").filter((a) => a !== "") : [];
  const proc = spawn(process.execPath, [...extra, "--import", "tsx", SERVER_SCRIPT, role], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => {
    proc.once("exit", () => {
      resolve();
    });
  });
  const samples: ((sample: ResourceSample) => void)[] = [];
  const child: Child = {
    process: proc,
    sample() {
      return new Promise((resolve) => {
        samples.push(resolve);
        const request: ParentMessage = { type: "sample" };
        proc.send(request);
      });
    },
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      proc.kill("SIGTERM");
      await exited;
      clearTimeout(timer);
    },
  };
  const message = await new Promise<Extract<ServerMessage, { type: T }>>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${role} server not ready within 60 s`));
    }, 60_000);
    proc.on("message", (raw: ServerMessage) => {
      if (raw.type === "sample") {
        samples.shift()?.(raw.sample);
      } else if (raw.type === "failed") {
        clearTimeout(timer);
        reject(new Error(`${role} server failed: ${raw.message}`));
      } else if (raw.type === ready) {
        clearTimeout(timer);
        resolve(raw as Extract<ServerMessage, { type: T }>);
      }
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${role} server exited with ${String(code)} before it was ready`));
    });
  });
  return { child, message };
}

interface LatencyStats {
  calls: number;
  callsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

/** What one round cost the client (this process) and the server process. */
interface RoundCost {
  clientCpuUsPerCall: number;
  serverCpuUsPerCall: number;
  clientGcPauses: number;
  clientGcMs: number;
  serverGcPauses: number;
  serverGcMs: number;
}

interface Measured {
  stats: LatencyStats;
  cost: RoundCost | undefined;
  /** Every latency of the round, ascending (ms). */
  latencies: Float64Array;
}

function statsOf(latencies: Float64Array, seconds: number): LatencyStats {
  let sum = 0;
  for (const value of latencies) sum += value;
  return {
    calls: latencies.length,
    callsPerSecond: Math.round(latencies.length / seconds),
    p50Ms: round(percentile(latencies, 50)),
    p90Ms: round(percentile(latencies, 90)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(latencies[latencies.length - 1] ?? NaN),
    meanMs: round(sum / latencies.length),
  };
}

async function measure(calls: number, concurrency: number, call: (i: number) => Promise<void>): Promise<Measured> {
  const latencies = new Float64Array(calls);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls) {
      const i = next++;
      const started = performance.now();
      await call(i);
      latencies[i] = performance.now() - started;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort();
  return { stats: statsOf(latencies, seconds), cost: undefined, latencies };
}

/** `measure`, plus the CPU time and GC pauses of both processes during the round. */
async function measureWithCost(
  calls: number,
  concurrency: number,
  call: (i: number) => Promise<void>,
  client: () => ResourceSample,
  server: Child,
): Promise<Measured> {
  const serverBefore = await server.sample();
  const clientBefore = client();
  const measured = await measure(calls, concurrency, call);
  const clientAfter = client();
  const serverAfter = await server.sample();
  measured.cost = {
    clientCpuUsPerCall: round(((clientAfter.cpuMs - clientBefore.cpuMs) * 1000) / calls, 1),
    serverCpuUsPerCall: round(((serverAfter.cpuMs - serverBefore.cpuMs) * 1000) / calls, 1),
    clientGcPauses: clientAfter.gcCount - clientBefore.gcCount,
    clientGcMs: round(clientAfter.gcMs - clientBefore.gcMs, 1),
    serverGcPauses: serverAfter.gcCount - serverBefore.gcCount,
    serverGcMs: round(serverAfter.gcMs - serverBefore.gcMs, 1),
  };
  return measured;
}

export interface MethodSummary {
  /** Medians across rounds (max: the largest seen). */
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  callsPerSecond: number;
  /** Percentiles of all the rounds' calls taken together. */
  pooled: { calls: number; p50Ms: number; p99Ms: number };
  /** Medians across rounds. */
  cost: RoundCost;
  rounds: (LatencyStats & { cost: RoundCost | undefined })[];
}

export interface ModeResult {
  name: string;
  concurrency: number;
  callsPerRound: number;
  empty: MethodSummary;
  validate: MethodSummary;
  /** The target's measure: median validate p99 / median empty p99. */
  p99Ratio: number;
  p50Ratio: number;
  /** Validate p99 / empty p99 of each adjacent pair of rounds, their median and range. */
  p99RatioPerPair: number[];
  p99RatioMedianOfPairs: number;
  p99RatioPairRange: { min: number; max: number };
  /** The verdict: pooled validate p99 / pooled empty p99 (every call of every round). */
  pooledP99Ratio: number;
  /** The same over the first and over the second half of the rounds: how steady the verdict is within a run. */
  pooledP99RatioHalves: [number, number];
}

/** Every latency of these rounds together, ascending. */
function pooled(measured: readonly Measured[]): Float64Array {
  const all = new Float64Array(measured.reduce((n, m) => n + m.latencies.length, 0));
  let at = 0;
  for (const m of measured) {
    all.set(m.latencies, at);
    at += m.latencies.length;
  }
  return all.sort();
}

const pooledP99 = (measured: readonly Measured[]): number => percentile(pooled(measured), 99);

function summarize(measured: Measured[]): MethodSummary {
  const rounds = measured.map((m) => m.stats);
  const all = pooled(measured);
  const costs = measured.flatMap((m) => (m.cost === undefined ? [] : [m.cost]));
  // Means: a short round's GC count is mostly 0 or 1, so its median says little.
  const costMean = (pick: (c: RoundCost) => number): number =>
    round(costs.reduce((sum, c) => sum + pick(c), 0) / costs.length, 1);
  return {
    p50Ms: round(median(rounds.map((r) => r.p50Ms))),
    p90Ms: round(median(rounds.map((r) => r.p90Ms))),
    p99Ms: round(median(rounds.map((r) => r.p99Ms))),
    maxMs: round(Math.max(...rounds.map((r) => r.maxMs))),
    callsPerSecond: Math.round(median(rounds.map((r) => r.callsPerSecond))),
    pooled: { calls: all.length, p50Ms: round(percentile(all, 50)), p99Ms: round(percentile(all, 99)) },
    cost: {
      clientCpuUsPerCall: costMean((c) => c.clientCpuUsPerCall),
      serverCpuUsPerCall: costMean((c) => c.serverCpuUsPerCall),
      clientGcPauses: costMean((c) => c.clientGcPauses),
      clientGcMs: costMean((c) => c.clientGcMs),
      serverGcPauses: costMean((c) => c.serverGcPauses),
      serverGcMs: costMean((c) => c.serverGcMs),
    },
    rounds: measured.map((m) => ({ ...m.stats, cost: m.cost })),
  };
}

const EMPTY_REQUEST = Buffer.alloc(0);

export interface GrpcResult {
  keys: number;
  internalToken: boolean;
  roundsPerMethod: Record<string, number>;
  modes: ModeResult[];
  /** Cross-check: sequential, the methods alternating call by call (calls/s there: 1 / mean latency). */
  alternating: ModeResult;
}

function compare(
  name: string,
  concurrency: number,
  callsPerRound: number,
  emptyRounds: Measured[],
  validateRounds: Measured[],
): ModeResult {
  const empty = summarize(emptyRounds);
  const validate = summarize(validateRounds);
  const perPair = validate.rounds.map((v, i) => v.p99Ms / (empty.rounds[i]?.p99Ms ?? NaN));
  const half = Math.floor(emptyRounds.length / 2);
  const pooledRatio = (from: number, to: number): number =>
    pooledP99(validateRounds.slice(from, to)) / pooledP99(emptyRounds.slice(from, to));
  return {
    name,
    concurrency,
    callsPerRound,
    empty,
    validate,
    p99Ratio: round(validate.p99Ms / empty.p99Ms),
    p50Ratio: round(validate.p50Ms / empty.p50Ms),
    p99RatioPerPair: perPair.map((r) => round(r)),
    p99RatioMedianOfPairs: round(median(perPair)),
    p99RatioPairRange: { min: round(Math.min(...perPair)), max: round(Math.max(...perPair)) },
    pooledP99Ratio: round(validate.pooled.p99Ms / empty.pooled.p99Ms),
    pooledP99RatioHalves: [round(pooledRatio(0, half)), round(pooledRatio(half, emptyRounds.length))],
  };
}

export async function benchGrpc(): Promise<GrpcResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-validate-grpc-"));
  const token = randomBytes(24).toString("hex");
  const children: Child[] = [];
  const clients: grpc.Client[] = [];
  try {
    const baseEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "error",
    };
    const db = await startChild("db", baseEnv, "db-ready");
    children.push(db.child);
    const wallet = await startChild(
      "wallet",
      {
        ...baseEnv,
        DATABASE_URL: db.message.url,
        WALLET_GRPC_PORT: "0",
        WALLET_METRICS_PORT: "0",
        INTERNAL_TOKEN: token,
      },
      "wallet-ready",
    );
    children.push(wallet.child);

    // The gateway's client set-up: one long-lived channel from the gateway's client factory (ValidateApiKey
    // through kernel/wallet-codec.ts), the shared channel options, request id and internal token as metadata,
    // a deadline on every call. The baseline gets exactly the same.
    const walletClient = createWalletClient(
      `127.0.0.1:${wallet.message.walletPort}`,
      grpc.credentials.createInsecure(),
      CHANNEL_OPTIONS,
    );
    const emptyClient = new grpc.Client(
      `127.0.0.1:${wallet.message.emptyPort}`,
      grpc.credentials.createInsecure(),
      CHANNEL_OPTIONS,
    );
    clients.push(walletClient, emptyClient);
    let requests = 0;
    const metadata = (): grpc.Metadata => outgoingMetadata(`bench-${++requests}`, token);
    const callOptions = (): grpc.CallOptions => ({ deadline: Date.now() + DEADLINE_MS });

    const createStarted = performance.now();
    const keys = await createKeys(
      (user, shape, label) =>
        new Promise((resolve, reject) => {
          walletClient.CreateApiKey(
            { user_id: user, label, permissions: shape.permissions, ip_whitelist: shape.ipWhitelist },
            metadata(),
            callOptions(),
            (error: grpc.ServiceError | null, response?: CreateApiKeyResponse__Output) => {
              if (error !== null) reject(error);
              else if (response === undefined) reject(new Error("empty CreateApiKey response"));
              else resolve({ key: response.key, secret: response.secret });
            },
          );
        }),
    );
    process.stdout.write(
      `gRPC: created ${keys.length} keys over gRPC in ${((performance.now() - createStarted) / 1000).toFixed(1)} s\n`,
    );

    const probes = makeProbes(keys, PROBES, 2);
    const validateOnce = (input: ValidateInput): Promise<ValidateApiKeyResponse__Output> =>
      new Promise((resolve, reject) => {
        walletClient.ValidateApiKey(
          input,
          metadata(),
          callOptions(),
          (error: grpc.ServiceError | null, response?: ValidateApiKeyResponse__Output) => {
            if (error !== null) reject(error);
            else if (response === undefined) reject(new Error("empty ValidateApiKey response"));
            else resolve(response);
          },
        );
      });
    // Both timed calls have the same shape: one callback call wrapped in one promise.
    const inputs = probes.map((p) => p.input);
    const validate = (i: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const input = inputs[i % inputs.length];
        if (input === undefined) throw new Error("no probe");
        walletClient.ValidateApiKey(input, metadata(), callOptions(), (error: grpc.ServiceError | null) => {
          if (error !== null) reject(error);
          else resolve();
        });
      });
    const empty = (): Promise<void> =>
      new Promise((resolve, reject) => {
        emptyClient.makeUnaryRequest(
          EMPTY_METHOD_PATH,
          rawBytes,
          rawBytes,
          EMPTY_REQUEST,
          metadata(),
          callOptions(),
          (error: grpc.ServiceError | null) => {
            if (error !== null) reject(error);
            else resolve();
          },
        );
      });

    // Sanity: a slice of the mix answers as intended over the wire too.
    await inParallel(2_000, 16, async (i) => {
      const probe = probes[i];
      if (probe === undefined) return;
      const response = await validateOnce(probe.input);
      const outcome = response.valid ? "valid" : response.code;
      if (outcome !== probe.expected) throw new Error(`gRPC: ${probe.kind} probe answered ${outcome}`);
    });

    // Warm-up: JIT, HTTP/2 windows, both sides' allocation paths and heap sizes, each mode's concurrency.
    for (let pass = 0; pass < WARMUP.passes; pass++) {
      for (const mode of GRPC_MODES) {
        await measure(WARMUP.calls, mode.concurrency, empty);
        await measure(WARMUP.calls, mode.concurrency, validate);
      }
    }

    const clientMeter = resourceMeter();
    const modes: ModeResult[] = [];
    let offset = 0;
    for (const mode of GRPC_MODES) {
      const emptyRounds: Measured[] = [];
      const validateRounds: Measured[] = [];
      const runEmpty = async (): Promise<void> => {
        emptyRounds.push(await measureWithCost(mode.calls, mode.concurrency, empty, clientMeter, wallet.child));
      };
      const runValidate = async (): Promise<void> => {
        const base = offset;
        offset += mode.calls;
        const call = (i: number): Promise<void> => validate(base + i);
        validateRounds.push(await measureWithCost(mode.calls, mode.concurrency, call, clientMeter, wallet.child));
      };
      for (let r = 0; r < mode.rounds; r++) {
        if (r % 2 === 0) {
          await runEmpty();
          await runValidate();
        } else {
          await runValidate();
          await runEmpty();
        }
      }
      const result = compare(mode.name, mode.concurrency, mode.calls, emptyRounds, validateRounds);
      modes.push(result);
      process.stdout.write(
        `gRPC ${mode.name}: pooled p99 empty ${result.empty.pooled.p99Ms} ms, validate ${result.validate.pooled.p99Ms} ms ` +
          `(ratio ${result.pooledP99Ratio}; halves ${result.pooledP99RatioHalves.join(", ")}; ` +
          `of medians ${result.p99Ratio}; median of pairs ${result.p99RatioMedianOfPairs})\n`,
      );
    }

    // A cross-check that other work on the machine cannot bias: one call in flight, the two methods
    // alternating call by call (ABBA), so whatever stalls the machine lands on both alike.
    const timed = async (call: (i: number) => Promise<void>, i: number): Promise<number> => {
      const started = performance.now();
      await call(i);
      return performance.now() - started;
    };
    const alternatingEmpty: Measured[] = [];
    const alternatingValidate: Measured[] = [];
    for (let r = 0; r < ALTERNATING.rounds; r++) {
      const e = new Float64Array(ALTERNATING.pairs);
      const v = new Float64Array(ALTERNATING.pairs);
      for (let i = 0; i < ALTERNATING.pairs; i++) {
        const n = offset++;
        if (i % 2 === 0) {
          e[i] = await timed(empty, n);
          v[i] = await timed(validate, n);
        } else {
          v[i] = await timed(validate, n);
          e[i] = await timed(empty, n);
        }
      }
      for (const [latencies, into] of [
        [e, alternatingEmpty],
        [v, alternatingValidate],
      ] as const) {
        const busySeconds = latencies.reduce((sum, ms) => sum + ms, 0) / 1000;
        latencies.sort();
        into.push({ stats: statsOf(latencies, busySeconds), cost: undefined, latencies });
      }
    }
    const alternating = compare(
      "sequential, alternating calls",
      1,
      ALTERNATING.pairs,
      alternatingEmpty,
      alternatingValidate,
    );
    process.stdout.write(
      `gRPC ${alternating.name}: pooled p99 empty ${alternating.empty.pooled.p99Ms} ms, ` +
        `validate ${alternating.validate.pooled.p99Ms} ms (ratio ${alternating.pooledP99Ratio})\n`,
    );
    const roundsPerMethod = Object.fromEntries(GRPC_MODES.map((m) => [m.name, m.rounds]));
    return { keys: keys.length, internalToken: true, roundsPerMethod, modes, alternating };
  } finally {
    for (const client of clients) client.close();
    for (const child of children.reverse()) await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- report

function table(rows: (string | number)[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => String(row[c] ?? "").length))) ?? [];
  return rows
    .map((row, r) => {
      const line = row.map((cell, c) => String(cell).padStart(widths[c] ?? 0)).join("  ");
      return r === 0 ? `${line}\n${widths.map((w) => "-".repeat(w)).join("  ")}` : line;
    })
    .join("\n");
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadAverage = (): string =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  const loadStart = loadAverage();
  const cpu = os.cpus()[0]?.model ?? "unknown";
  process.stdout.write(`bench:validate on Node ${process.version}, ${os.cpus().length} × ${cpu}\n`);

  // One part alone, for profiling (`node --cpu-prof --import tsx scripts/bench-validate.ts --only=grpc`);
  // prints its numbers as JSON and writes no report file.
  const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length);
  if (only === "in-process" || only === "grpc") {
    const part = only === "grpc" ? await benchGrpc() : await benchInProcess();
    process.stdout.write(
      JSON.stringify(part, (key, value: unknown) => (key === "rounds" ? undefined : value), 2) + "\n",
    );
    return;
  }
  const inProcess = await benchInProcess();
  process.stdout.write(`in process: median ${inProcess.medianPerSecond.toLocaleString("en-US")} validations/s\n`);
  const overGrpc = await benchGrpc();

  const loadEnd = loadAverage();
  const inProcessOk = inProcess.medianPerSecond >= TARGET_IN_PROCESS_PER_SECOND;
  const ratiosOk = overGrpc.modes.map((m) => ({
    mode: m.name,
    ratio: m.pooledP99Ratio,
    halves: m.pooledP99RatioHalves,
    ok: m.pooledP99Ratio <= TARGET_P99_RATIO,
  }));
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    cpu,
    cpus: os.cpus().length,
    platform: `${os.platform()} ${os.release()}`,
    loadAverage: { start: loadStart, end: loadEnd },
    inProcess,
    grpc: overGrpc,
    targets: {
      inProcessPerSecond: { target: TARGET_IN_PROCESS_PER_SECOND, median: inProcess.medianPerSecond, ok: inProcessOk },
      p99Ratio: {
        target: TARGET_P99_RATIO,
        byMode: ratiosOk,
        crossCheckAlternating: {
          ratio: overGrpc.alternating.pooledP99Ratio,
          ok: overGrpc.alternating.pooledP99Ratio <= TARGET_P99_RATIO,
        },
      },
    },
    durationSeconds: round((performance.now() - started) / 1000, 1),
  };
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, JSON.stringify(results, null, 2) + "\n");

  const fmt = (n: number): string => n.toLocaleString("en-US");
  const orDash = (n: number): number | string => (Number.isNaN(n) ? "-" : n);
  process.stdout.write(
    [
      "",
      `In process: WalletService.validate(), ${inProcess.keys} keys, mix ${Object.entries(MIX)
        .map(([k, v]) => `${k} ${v * 100}%`)
        .join(", ")}, ${inProcess.rounds.length} rounds of ${inProcess.roundMs / 1000} s`,
      table([
        ["validations/s", "median", "min", "max", "ns/validation", `target ≥ ${fmt(TARGET_IN_PROCESS_PER_SECOND)}`],
        [
          "",
          fmt(inProcess.medianPerSecond),
          fmt(inProcess.minPerSecond),
          fmt(inProcess.maxPerSecond),
          inProcess.nsPerValidation,
          inProcessOk ? "met" : "MISSED",
        ],
      ]),
      "",
      `Over gRPC: loopback, wallet in a child process (PGlite in a third, as npm start), internal token on; ` +
        `${GRPC_MODES.map((m) => `${m.name} ${m.rounds} × ${m.calls}`).join(", ")} calls per method in ABBA-ordered ` +
        `rounds; p50 and p99 of all the rounds' calls together`,
      table([
        [
          "mode",
          "method",
          "calls",
          "calls/s",
          "p50 ms",
          "p99 ms",
          "round p99 ms",
          "max ms",
          "client µs/call",
          "server µs/call",
          "server GC ms/1k calls",
          "p99 ratio",
          "halves",
          "of medians",
          "pairs: median [min–max]",
          `≤ ${TARGET_P99_RATIO}`,
        ],
        ...[...overGrpc.modes, overGrpc.alternating].flatMap((m) =>
          (["empty", "validate"] as const).map((method) => {
            const x = m[method];
            const first = method === "empty";
            return [
              first ? m.name : "",
              first ? "empty" : "ValidateApiKey",
              fmt(x.pooled.calls),
              fmt(x.callsPerSecond),
              x.pooled.p50Ms,
              x.pooled.p99Ms,
              x.p99Ms,
              x.maxMs,
              orDash(x.cost.clientCpuUsPerCall),
              orDash(x.cost.serverCpuUsPerCall),
              orDash(round((x.cost.serverGcMs * 1000) / m.callsPerRound, 1)),
              first ? "" : m.pooledP99Ratio,
              first ? "" : m.pooledP99RatioHalves.join(", "),
              first ? "" : m.p99Ratio,
              first ? "" : `${m.p99RatioMedianOfPairs} [${m.p99RatioPairRange.min}–${m.p99RatioPairRange.max}]`,
              first ? "" : m.pooledP99Ratio <= TARGET_P99_RATIO ? "met" : "MISSED",
            ];
          }),
        ),
      ]),
      "p99 ratio = p99 of all ValidateApiKey calls / p99 of all empty calls of the mode (the target); halves = " +
        "the same over the first and the second half of the rounds; of medians = median of the rounds' validate " +
        "p99s / median of the rounds' empty p99s (round p99 ms); pairs = the ratios of adjacent rounds. calls/s " +
        "is the median over rounds, CPU and GC the mean. The last mode alternates the two methods call by call " +
        "(a cross-check immune to drift; its calls/s is 1 / mean latency, and CPU is not split).",
      `Load average at start / end: ${loadStart} / ${loadEnd} (other work on this machine shows up in the tails).`,
      "",
      `Wrote ${path.relative(ROOT, RESULTS_FILE)} (${results.durationSeconds} s)`,
      "",
    ].join("\n"),
  );
}

if (isEntryPoint(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `bench:validate failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  });
}
