// The live stream's part of `npm run bench` (docs/performance.md, "Live stream"), also alone as
// `npm run bench:stream`. On the real stack (PostgreSQL, wallet, engine, gateway, PRICE_FEED=push) with an
// HTTPS webhook receiver on loopback:
//   1. Fan-out: STREAM_SUBSCRIBERS sockets on one gateway subscribed to one account (one engine WatchAccount
//      shared by them), a burst of orders placed and cancelled on it; events delivered per second over all the
//      sockets, from the first event's arrival to the last one's.
//   2. Latency: MARKET orders that fill at once on another account (another user), one every 100 ms, watched by
//      one socket and by a webhook key; for each fill, its `executed_at` (the engine's decision) to its `order.fill` on the socket and to
//      the same event's webhook delivery, p50 and p99 of both, same fills.
// The clients run in this process on the same machine: their CPU is counted against the stack's.
import { performance } from "node:perf_hooks";
import { stackOn, type TestStack } from "../test/harness/backends.js";
import { newKey, v1, type CreatedKey } from "../test/harness/client.js";
import { marketClient, type Market } from "../test/harness/market.js";
import { makeTestCa, startReceiver, type Receiver, type TestCa } from "../test/harness/receiver.js";
import { StreamClient } from "../test/harness/stream.js";

export const STREAM_SUBSCRIBERS = Number(process.env.BENCH_STREAM_SUBSCRIBERS ?? 1_000);
/** Orders of the fan-out burst (each placed then cancelled: two events). */
const BURST_ORDERS = 400;
const LATENCY_FILLS = 200;
/** Between the latency phase's orders: paced, so each fill's webhook is not queued behind the previous ones'. */
const LATENCY_PACE_MS = 100;
const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";

export interface StreamBenchResult {
  subscribers: number;
  events: number;
  deliveredPerSecond: number;
  fills: number;
  socketMs: { p50: number; p99: number; max: number };
  webhookMs: { p50: number; p99: number; max: number };
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
const stats = (values: number[]): { p50: number; p99: number; max: number } => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
};

async function inBatches<T>(count: number, width: number, run: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += width) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, j) => run(i + j)))));
  }
  return out;
}

interface Parts {
  stack: TestStack;
  market: Market;
  ca: TestCa;
  receiver: Receiver;
  base: string;
  /** The fan-out's key: a user without webhooks, so its burst never queues ahead of the measured fills. */
  trader: CreatedKey;
  /** The latency phase's key, with a webhook to the receiver. */
  hooked: CreatedKey;
}

async function start(): Promise<Parts> {
  const ca = makeTestCa();
  const receiver = await startReceiver(ca);
  const stack = await stackOn("postgres", {
    env: { PRICE_FEED: "push", WEBHOOK_ALLOW_PRIVATE: "true" },
    engineEnv: { WEBHOOK_CA_FILE: ca.caFile },
    gatewayEnv: { RATE_LIMIT_MAX: "10000000", STREAM_MAX_SOCKETS_PER_KEY: String(STREAM_SUBSCRIBERS + 10) },
  });
  const market = marketClient(stack.engineGrpc);
  await market.push({ "BTC-USD": 100_000 });
  const base = stack.gateways[0]?.v1 ?? "";
  const api = stack.gateways[0]?.api ?? "";
  const permissions = ["READ_ONLY", "TRADE", "MANAGE_ORDERS"];
  const trader = await newKey(api, "bench-stream-fan", { label: "bench", permissions });
  const hooked = await newKey(api, "bench-stream-hooked", {
    label: "bench",
    permissions,
    webhookUrl: `${receiver.origin}/bench`,
  });
  if (hooked.webhookSecret !== undefined) receiver.secrets.set("/bench", hooked.webhookSecret);
  return { stack, market, ca, receiver, base, trader, hooked };
}

async function openAccount(parts: Parts, key: CreatedKey): Promise<string> {
  const created = await v1(parts.base, "/v1/account", key, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ plan_id: PLAN_10K }),
  });
  return String(created.body.account_id);
}

const post = (parts: Parts, key: CreatedKey, path: string, body: unknown, method = "POST") =>
  v1(parts.base, path, key, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function fanOut(parts: Parts, say: (line: string) => void): Promise<{ events: number; perSecond: number }> {
  const accountId = await openAccount(parts, parts.trader);
  const sockets = await inBatches(STREAM_SUBSCRIBERS, 50, () => StreamClient.open(parts.base, parts.trader));
  for (const socket of sockets) socket.send({ op: "subscribe", account_id: accountId });
  await Promise.all(sockets.map((s) => s.next((m) => m.op === "subscribed", "ack")));
  say(`${sockets.length} sockets subscribed to one account`);
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  let received = 0;
  for (const socket of sockets) {
    // Count only: the test client's own handler parses and keeps every message, which would make this
    // process the bottleneck.
    socket.ws.removeAllListeners("message");
    socket.ws.on("message", () => {
      const now = performance.now();
      if (now < first) first = now;
      last = now;
      received++;
    });
  }
  const failures: string[] = [];
  await inBatches(BURST_ORDERS, 10, async () => {
    const placed = await post(parts, parts.trader, "/v1/order", {
      account_id: accountId,
      symbol: "BTC-USD",
      side: "BUY",
      kind: "LIMIT",
      quantity: 0.001,
      limit_price: 1000,
    });
    const order = placed.body.order as { order_id: string } | undefined;
    if (order === undefined) {
      failures.push(`${placed.status} ${JSON.stringify(placed.body)}`);
      return;
    }
    const canceled = await v1(parts.base, `/v1/order/${order.order_id}`, parts.trader, { method: "DELETE" });
    if (canceled.status !== 200) failures.push(`${canceled.status} ${JSON.stringify(canceled.body)}`);
  });
  if (failures.length > 0) say(`${failures.length} requests of the burst failed, first: ${failures[0] ?? ""}`);
  const events = (await v1(parts.base, `/v1/account/${accountId}/events?limit=1000`, parts.trader)).body
    .data as unknown[];
  const expected = events.length * sockets.length;
  const deadline = performance.now() + 120_000;
  while (received < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const socket of sockets) socket.close();
  return { events: received, perSecond: Math.round((received / (last - first)) * 1000) };
}

async function latency(parts: Parts): Promise<{ socket: number[]; webhook: number[] }> {
  const accountId = await openAccount(parts, parts.hooked);
  const socket = await StreamClient.open(parts.base, parts.hooked);
  const arrived = new Map<string, number>();
  socket.ws.on("message", (data: Buffer) => {
    const message = JSON.parse(data.toString("utf8")) as { type?: string; id?: string };
    if (message.type === "order.fill" && message.id !== undefined) arrived.set(message.id, Date.now());
  });
  socket.send({ op: "subscribe", account_id: accountId });
  await socket.next((m) => m.op === "subscribed", "ack");
  for (let i = 0; i < LATENCY_FILLS; i++) {
    // Alternate sides so the position stays small; paced, so each fill is measured alone.
    await new Promise((r) => setTimeout(r, LATENCY_PACE_MS));
    await post(parts, parts.hooked, "/v1/order", {
      account_id: accountId,
      symbol: "BTC-USD",
      side: i % 2 === 0 ? "BUY" : "SELL",
      kind: "MARKET",
      quantity: 0.001,
    });
  }
  const hooked = (): Map<string, { at: number; executed: number }> =>
    new Map(
      parts.receiver
        .on("/bench")
        .filter((r) => r.envelope?.type === "order.fill" && r.envelope.account_id === accountId)
        .map((r) => [r.envelope?.id ?? "", { at: r.at, executed: Date.parse(String(r.envelope?.data.executed_at)) }]),
    );
  const deadline = performance.now() + 120_000;
  while ((hooked().size < LATENCY_FILLS || arrived.size < LATENCY_FILLS) && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  socket.close();
  const socketMs: number[] = [];
  const webhookMs: number[] = [];
  for (const [id, hook] of hooked()) {
    const at = arrived.get(id);
    if (at === undefined) continue;
    socketMs.push(at - hook.executed);
    webhookMs.push(hook.at - hook.executed);
  }
  return { socket: socketMs, webhook: webhookMs };
}

export async function benchStream(say: (line: string) => void): Promise<StreamBenchResult> {
  say("live stream: starting the stack (PostgreSQL, wallet, engine, gateway) and a webhook receiver...");
  const parts = await start();
  try {
    const fan = await fanOut(parts, say);
    say(`fan-out: ${fan.events} events delivered to ${STREAM_SUBSCRIBERS} sockets, ${fan.perSecond}/s`);
    const measured = await latency(parts);
    const result: StreamBenchResult = {
      subscribers: STREAM_SUBSCRIBERS,
      events: fan.events,
      deliveredPerSecond: fan.perSecond,
      fills: measured.socket.length,
      socketMs: stats(measured.socket),
      webhookMs: stats(measured.webhook),
    };
    say(
      `fill → socket p50 ${result.socketMs.p50} ms, p99 ${result.socketMs.p99} ms; same fills → webhook p50 ` +
        `${result.webhookMs.p50} ms, p99 ${result.webhookMs.p99} ms (${result.fills} fills)`,
    );
    return result;
  } finally {
    parts.market.close();
    await parts.stack.stop();
    await parts.receiver.close();
    parts.ca.remove();
  }
}

if (process.argv[1]?.endsWith("bench-stream.ts")) {
  const say = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  benchStream(say)
    .then((result) => {
      say(JSON.stringify(result));
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
