// The client's messages on GET /v1/stream (docs/streaming.md, `StreamOp` in docs/openapi.yaml), read into one
// operation or an `invalid_payload` error with one issue per bad field. An optional `id` (a string of at most
// 64 characters, or an integer) is echoed on the answer, so a client can pair them. A trading operation
// (`order.place`, …: gateway/v1/trading-ops.ts) carries its REST input in `args`; its own fields are checked here
// and its `args` where it runs, as REST checks a body.
import { ServiceError, type Issue } from "../../kernel/errors.js";
import { isUuid } from "../../kernel/uuid.js";
import { TRADING_OPS, type TradingOp } from "../v1/trading-ops.js";

/** What an answer repeats of its operation: the client's `id`, when it sent one. */
export interface Echo {
  id?: string | number;
}

export type Op =
  | { op: "ping"; echo: Echo }
  | { op: "subscribe"; channel: "account"; accountId: string; after: number | undefined; echo: Echo }
  | { op: "unsubscribe"; channel: "account"; accountId: string; echo: Echo }
  | { op: "subscribe"; channel: "tickers"; symbols: string[]; echo: Echo }
  | { op: "unsubscribe"; channel: "tickers"; symbols: string[]; echo: Echo }
  | { op: "trade"; trading: TradingOp<unknown>; args: unknown; echo: Echo };

/** A message that is no operation: its error, its `id`, and the trading operation it named, if any. */
export type Parsed = { op: Op } | { error: ServiceError; echo: Echo; trading?: TradingOp<unknown> };

/** The fields of a trading operation's message. */
const TRADING_FIELDS = new Set(["op", "id", "args"]);

/** Most symbols one operation may name. */
export const MAX_SYMBOLS = 200;

function echoOf(body: Record<string, unknown>, issues: Issue[]): Echo {
  const id = body.id;
  if (id === undefined) return {};
  if ((typeof id === "string" && id.length <= 64) || (typeof id === "number" && Number.isSafeInteger(id))) {
    return { id };
  }
  issues.push({ path: "id", message: "must be a string of at most 64 characters or an integer" });
  return {};
}

function accountIdOf(body: Record<string, unknown>, issues: Issue[]): string {
  const value = body.account_id;
  if (typeof value === "string" && isUuid(value.toLowerCase())) return value.toLowerCase();
  issues.push({ path: "account_id", message: "must be a UUID" });
  return "";
}

function afterOf(body: Record<string, unknown>, issues: Issue[]): number | undefined {
  const value = body.after;
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  issues.push({ path: "after", message: "must be an integer ≥ 0 (the last sequence received)" });
  return undefined;
}

function symbolsOf(body: Record<string, unknown>, issues: Issue[]): string[] {
  const value = body.symbols;
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_SYMBOLS || !value.every((s) => typeof s === "string")) {
    issues.push({ path: "symbols", message: `must be an array of at most ${MAX_SYMBOLS} symbols` });
    return [];
  }
  return value;
}

/** A trading operation's message: `args` (an object) and nothing beside `op` and `id`. */
function tradeOf(trading: TradingOp<unknown>, body: Record<string, unknown>, echo: Echo, issues: Issue[]): Op {
  for (const field of Object.keys(body)) {
    if (!TRADING_FIELDS.has(field)) issues.push({ path: field, message: "unknown field (the input goes in args)" });
  }
  const args = body.args;
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    issues.push({ path: "args", message: args === undefined ? "required" : "must be a JSON object" });
  }
  return { op: "trade", trading, args, echo };
}

function opOf(body: Record<string, unknown>, echo: Echo, issues: Issue[]): Op | undefined {
  const op = body.op;
  if (op === "ping") return { op, echo };
  const trading = typeof op === "string" ? TRADING_OPS.get(op) : undefined;
  if (trading !== undefined) return tradeOf(trading, body, echo, issues);
  if (op !== "subscribe" && op !== "unsubscribe") {
    issues.push({
      path: "op",
      message: `must be subscribe, unsubscribe, ping or one of ${[...TRADING_OPS.keys()].join(", ")}`,
    });
    return undefined;
  }
  const channel = body.channel ?? "account";
  if (channel === "tickers") return { op, channel, symbols: symbolsOf(body, issues), echo };
  if (channel !== "account") {
    issues.push({ path: "channel", message: "must be account or tickers" });
    return undefined;
  }
  const accountId = accountIdOf(body, issues);
  if (op === "unsubscribe") return { op, channel, accountId, echo };
  return { op, channel, accountId, after: afterOf(body, issues), echo };
}

/** One client message. */
export function parseOp(text: string): Parsed {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { error: ServiceError.invalid([{ path: "", message: "must be a JSON object" }]), echo: {} };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { error: ServiceError.invalid([{ path: "", message: "must be a JSON object" }]), echo: {} };
  }
  const issues: Issue[] = [];
  const record = body as Record<string, unknown>;
  const echo = echoOf(record, issues);
  const op = opOf(record, echo, issues);
  if (op === undefined || issues.length > 0) {
    const error = ServiceError.invalid(issues);
    return op?.op === "trade" ? { error, echo, trading: op.trading } : { error, echo };
  }
  return { op };
}
