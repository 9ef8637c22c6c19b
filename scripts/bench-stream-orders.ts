// Order entry over the stream, a part of `npm run bench` (docs/performance.md, "Order entry over the stream"),
// also alone as `npm run bench:stream-orders`: orders placed per second through one gateway over STREAM_ORDERS
// sockets on GET /v1/stream, each pipelining a window of `order.place` operations (docs/streaming.md), resting
// LIMIT and filling MARKET. Its rounds are closed-loop rounds of the HTTP session (scripts/bench-session.ts),
// interleaved with REST place order and the Express → gRPC ceiling of the same run, with the CPU of every process
// read from /proc around each round; the load generator is scripts/bench-stream-orders-load.ts.
// The part has accounts of its own (keys of their own, several accounts per key, several sockets per key, each
// socket trading its own accounts), so REST's cancel pool never sees its orders; before each LIMIT round every
// working order of those accounts is cancelled (REST, outside the round), so no account gathers resting orders
// from round to round. MARKET orders alternate BUY and SELL per account: positions stay within one quantity.
//   --rounds=N --round-ms=N --warmup-ms=N   (alone only) N interleaved rounds of N ms, warm-ups of N ms
//   --stream-sockets=N --stream-window=N    sockets, and operations in flight per socket
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { GatewayEndpoints } from "../test/harness/stack.js";
import { v1 } from "../test/harness/client.js";
import { round } from "./bench-engine-load.js";
import { figureTable, spread, type FigureRow } from "./bench-report.js";
import {
  announce,
  BUY_LIMIT,
  CHECK_EVERY,
  closedLoopRounds,
  createAccounts,
  inParallel,
  loadAverage,
  machine,
  onCleanup,
  printHttpTables,
  QUANTITY,
  ROOT,
  ROUND_MS,
  runMain,
  say,
  SELL_LIMIT,
  startHttpSession,
  summaryOf,
  SYMBOL,
  warnOfErrors,
  type BenchAccount,
  type HttpSession,
  type OrderKind,
  type RoundTarget,
  type TargetSummary,
} from "./bench-session.js";
import { OrderSocket, pipelinedRun } from "./bench-stream-orders-load.js";

export interface StreamOrdersSettings {
  sockets: number;
  /** Operations in flight per socket (the gateway holds at most 256 waiting per socket). */
  window: number;
  keys: number;
  accountsPerKey: number;
}

export const STREAM_ORDERS: StreamOrdersSettings = { sockets: 64, window: 16, keys: 16, accountsPerKey: 16 };
/** The part's targets (docs/performance.md): orders/s ≥ 2 × the ceiling; gateway CPU per order ≤ 0.5 × REST's. */
export const STREAM_GOALS = { toCeiling: 2, gatewayCpuToRest: 0.5 };

function intArg(argv: readonly string[], name: string, min: number, max: number): number | undefined {
  const arg = argv.find((a) => a.startsWith(`--${name}=`));
  if (arg === undefined) return undefined;
  const value = Number(arg.slice(name.length + 3));
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} wants ${min} to ${max}`);
  return value;
}

/** The part's settings: STREAM_ORDERS with `--stream-sockets` and `--stream-window` of the command line. */
export function streamOrdersArgs(argv: readonly string[]): StreamOrdersSettings {
  const sockets = intArg(argv, "stream-sockets", 1, 1_024) ?? STREAM_ORDERS.sockets;
  const window = intArg(argv, "stream-window", 1, 256) ?? STREAM_ORDERS.window;
  const keys = Math.min(STREAM_ORDERS.keys, sockets);
  const accountsPerKey = Math.max(STREAM_ORDERS.accountsPerKey, Math.ceil(sockets / keys));
  return { sockets, window, keys, accountsPerKey };
}

/**
 * What the gateway needs for the part, beside the raised rate limit every HTTP bench has: room for its sockets
 * per key, and the admission bounds (docs/overload.md) above its operations in flight, so the rounds measure
 * what the stack serves rather than what admission sheds. REST's 64 connections stay under the default bounds.
 */
export function streamOrdersGatewayEnv(s: StreamOrdersSettings): Record<string, string> {
  const perKey = Math.ceil(s.sockets / s.keys);
  const inFlight = s.sockets * s.window;
  return {
    STREAM_MAX_SOCKETS_PER_KEY: String(Math.max(10, perKey)),
    ADMISSION_LIMIT_MIN: String(Math.max(64, inFlight)),
    ADMISSION_LIMIT_MAX: String(Math.max(1_024, inFlight)),
    ADMISSION_PER_KEY: String(Math.max(64, perKey * s.window)),
  };
}

/** The sockets: socket j belongs to key j mod keys, and takes its share of that key's accounts. */
function socketsOver(gateway: GatewayEndpoints, accounts: readonly BenchAccount[], s: StreamOrdersSettings) {
  const url = `${gateway.v1.replace(/^http/, "ws")}/v1/stream`;
  return Array.from({ length: s.sockets }, (_, j) => {
    const k = j % s.keys;
    const slot = Math.floor(j / s.keys);
    const ofKey = Math.floor(s.sockets / s.keys) + (k < s.sockets % s.keys ? 1 : 0);
    const own = accounts
      .map((a, index) => ({ accountId: a.accountId, index, key: a.key }))
      .filter((a) => a.index % s.keys === k)
      .filter((_, p) => p % ofKey === slot);
    const key = own[0]?.key;
    if (key === undefined) throw new Error(`socket ${j} has no account`);
    return new OrderSocket(url, key, own);
  });
}

const connectAll = (sockets: readonly OrderSocket[]): Promise<void> =>
  inParallel(sockets.length, 8, async (i) => {
    await sockets[i]?.connect();
  });

/** `order.place` operations over each socket's accounts in turn, a fresh client_id each, sides alternating. */
function placeOperation(name: string, kind: OrderKind, accounts: number) {
  const runTag = Date.now().toString(36);
  const sides = new Uint32Array(accounts);
  let seq = 0;
  return (socket: OrderSocket, id: number): string => {
    const account = socket.accounts[id % socket.accounts.length];
    if (account === undefined) throw new Error("a socket without accounts");
    const buy = (sides[account.index] = (sides[account.index] ?? 0) + 1) % 2 === 1;
    const price = kind === "LIMIT" ? `,"limit_price":"${buy ? BUY_LIMIT : SELL_LIMIT}"` : "";
    return (
      `{"op":"order.place","id":${id},"args":{"account_id":"${account.accountId}","symbol":"${SYMBOL}",` +
      `"side":"${buy ? "BUY" : "SELL"}","kind":"${kind}","quantity":"${QUANTITY}"${price},` +
      `"client_id":"${name}-${runTag}-${seq++}"}}`
    );
  };
}

/** A check of an `order.place` answer: the REST body of an order in `status`, without violations. */
const orderCheck =
  (status: string) =>
  (message: string): string | undefined => {
    const parsed = JSON.parse(message) as { op?: string; body?: { order?: { status?: string }; violations?: [] } };
    return parsed.op === "order.place" &&
      parsed.body?.order?.status === status &&
      (parsed.body.violations?.length ?? 0) === 0
      ? undefined
      : `expected an order.place answer with a ${status} order without violations: ${message.slice(0, 300)}`;
  };

/** Cancels every working order of the accounts (REST DELETE /v1/account/:id/orders, 16 at a time). */
async function cancelWorking(gateway: GatewayEndpoints, accounts: readonly BenchAccount[]): Promise<void> {
  await inParallel(accounts.length, 16, async (i) => {
    const account = accounts[i];
    if (account === undefined) return;
    const answer = await v1(gateway.v1, `/v1/account/${account.accountId}/orders`, account.key, { method: "DELETE" });
    if (answer.status !== 200)
      throw new Error(`cancelling working orders: ${answer.status} ${JSON.stringify(answer.body)}`);
  });
}

/** One operation on `socket` and its answer's whole message (for the probe, outside the rounds). */
async function ask(socket: OrderSocket, text: (id: number) => string): Promise<string> {
  const ws = socket.ws;
  if (ws === undefined) throw new Error("probe: the socket is not open");
  const id = socket.nextId++;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.off("message", onMessage);
      reject(new Error(`probe: no answer to operation ${id} within 10 s`));
    }, 10_000);
    const onMessage = (data: Buffer): void => {
      const message = data.toString("utf8");
      const parsed = JSON.parse(message) as { id?: unknown };
      if (parsed.id !== id) return;
      clearTimeout(timer);
      ws.off("message", onMessage);
      resolve(message);
    };
    ws.on("message", onMessage);
    ws.send(text(id));
  });
}

/** A LIMIT that rests, then a MARKET BUY and SELL that fill, on one socket: a server without order entry fails here. */
async function probe(socket: OrderSocket): Promise<void> {
  const accountId = socket.accounts[0]?.accountId;
  const steps = [
    { side: "BUY", kind: "LIMIT", status: "NEW" },
    { side: "BUY", kind: "MARKET", status: "FILLED" },
    { side: "SELL", kind: "MARKET", status: "FILLED" },
  ] as const;
  for (const { side, kind, status } of steps) {
    const args = { account_id: accountId, symbol: SYMBOL, side, kind, quantity: QUANTITY };
    const message = await ask(socket, (id) =>
      JSON.stringify({ op: "order.place", id, args: kind === "LIMIT" ? { ...args, limit_price: BUY_LIMIT } : args }),
    );
    const problem =
      (JSON.parse(message) as { status?: unknown }).status === 201 ? orderCheck(status)(message) : message;
    if (problem !== undefined) throw new Error(`probe of order entry over the stream: ${problem.slice(0, 400)}`);
  }
}

/**
 * The part's two round targets on the session's stack: its accounts and sockets made and opened, the probe
 * passed. Every socket closes at clean-up.
 */
export async function streamOrderTargets(session: HttpSession, s: StreamOrdersSettings): Promise<RoundTarget[]> {
  const gateway = session.e2e.stack.gateways[0];
  if (gateway === undefined) throw new Error("no gateway");
  const accounts = await createAccounts(gateway, {
    prefix: "stream",
    users: s.keys,
    accountsPerUser: s.accountsPerKey,
    concurrency: 16,
    permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
  });
  const sockets = socketsOver(gateway, accounts, s);
  onCleanup("stream order sockets", () => {
    for (const socket of sockets) socket.close();
    return Promise.resolve();
  });
  await connectAll(sockets);
  const first = sockets[0];
  if (first !== undefined) await probe(first);
  say(
    `stream order entry: ${s.sockets} sockets of ${s.keys} keys over ${accounts.length} accounts, ${s.window} in flight each`,
  );
  const target = (kind: OrderKind): RoundTarget => {
    const id = kind === "LIMIT" ? "stream-limit" : "stream-market";
    const operation = placeOperation(id, kind, accounts.length);
    return {
      id,
      description:
        `order.place on GET /v1/stream, ${kind === "LIMIT" ? "resting LIMIT" : "MARKET that fills"}, ` +
        `${s.sockets} sockets × ${s.window} in flight`,
      e2e: true,
      async prepare() {
        if (kind === "LIMIT") await cancelWorking(gateway, accounts);
        await connectAll(sockets);
      },
      run: (ms) =>
        pipelinedRun({
          name: id,
          sockets,
          window: s.window,
          ms,
          operation,
          expectStatus: 201,
          checkEvery: CHECK_EVERY,
          check: orderCheck(kind === "LIMIT" ? "NEW" : "FILLED"),
        }),
    };
  };
  return [target("LIMIT"), target("MARKET")];
}

/**
 * The part's lines of the summary: orders/s against the ceiling; the gateway's CPU µs per order, REST's and the
 * stream's, per round; p50 and p99 per order. `summaries` holds the ceiling, e2e-limit, e2e-market,
 * stream-limit and stream-market (and bare, for its ratio, when measured).
 */
export function streamOrderRows(summaries: ReadonlyMap<string, TargetSummary>, s: StreamOrdersSettings): FigureRow[] {
  const ceiling = summaryOf(summaries, "ceiling");
  const bare = summaries.get("bare");
  const gatewayUs = (t: TargetSummary): number[] => t.serverCpuUsPerRequestRounds.map((r) => r.gateway ?? NaN);
  return (["LIMIT", "MARKET"] as const).flatMap((kind): FigureRow[] => {
    const what = kind === "LIMIT" ? "LIMIT (rests)" : "MARKET (fills)";
    const rest = summaryOf(summaries, kind === "LIMIT" ? "e2e-limit" : "e2e-market");
    const stream = summaryOf(summaries, kind === "LIMIT" ? "stream-limit" : "stream-market");
    const toCeiling = round(stream.medianPerSecond / ceiling.medianPerSecond, 3);
    const restUs = spread(gatewayUs(rest)).median;
    const streamUs = spread(gatewayUs(stream)).median;
    const latency = (p: "p50Ms" | "p99Ms") => stream.runs.map((r) => r.latency[p]);
    return [
      {
        figure: `stream: place order ${what}, ${s.sockets} sockets × ${s.window} in flight`,
        unit: "orders/s",
        values: stream.rounds,
        toCeiling,
        ...(bare === undefined ? {} : { toBare: round(stream.medianPerSecond / bare.medianPerSecond, 3) }),
        toCeilingPerRound: stream.rounds.map((rate, i) => round(rate / (ceiling.rounds[i] ?? NaN), 3)),
        target: { text: `≥ ${STREAM_GOALS.toCeiling} × ceiling`, ok: toCeiling >= STREAM_GOALS.toCeiling },
      },
      { figure: `gateway CPU per order, REST ${what} (reference)`, unit: "µs", values: gatewayUs(rest) },
      {
        figure: `gateway CPU per order, stream ${what}`,
        unit: "µs",
        values: gatewayUs(stream),
        target: {
          text: `≤ ${STREAM_GOALS.gatewayCpuToRest} × REST's (${round(streamUs / restUs, 2)})`,
          ok: streamUs <= STREAM_GOALS.gatewayCpuToRest * restUs,
        },
      },
      { figure: `stream: place order ${kind} p50 per order`, unit: "ms", values: latency("p50Ms") },
      { figure: `stream: place order ${kind} p99 per order`, unit: "ms", values: latency("p99Ms") },
    ];
  });
}

// ---------------------------------------------------------------- alone: `npm run bench:stream-orders`

const RESULTS_FILE = path.join(ROOT, "bench", "stream-orders-results.json");

/** The ceiling, REST place order LIMIT and MARKET, and the part's two targets, in interleaved rounds. */
async function main(): Promise<void> {
  const { loadStart } = announce("bench:stream-orders");
  const argv = process.argv;
  const settings = streamOrdersArgs(argv);
  const plan = {
    rounds: intArg(argv, "rounds", 1, 100) ?? 3,
    roundMs: intArg(argv, "round-ms", 100, 600_000) ?? ROUND_MS,
    warmupMs: intArg(argv, "warmup-ms", 0, 600_000),
  };
  const session = await startHttpSession(streamOrdersGatewayEnv(settings));
  const [, ceiling, limit, market] = session.orderTargets;
  if (ceiling === undefined || limit === undefined || market === undefined) throw new Error("missing order targets");
  const targets = [ceiling, limit, market, ...(await streamOrderTargets(session, settings))];
  const summaries = await closedLoopRounds(targets, session, plan);
  const rows = streamOrderRows(summaries, settings);
  const loadEnd = loadAverage();
  say("");
  printHttpTables([...summaries.values()], [], 0, plan.roundMs);
  say("");
  say(figureTable(rows));
  warnOfErrors(summaries.values(), []);
  const results = {
    ...machine(loadStart, loadEnd),
    settings: { streamOrders: settings, ...plan },
    summary: rows,
    http: Object.fromEntries(summaries),
  };
  mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, JSON.stringify(results, null, 2) + "\n");
  say(`Wrote ${path.relative(ROOT, RESULTS_FILE)}`);
}

if (process.argv[1]?.endsWith("bench-stream-orders.ts")) runMain("bench:stream-orders", main);
