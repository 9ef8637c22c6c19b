// engine.v1's account calls: opening an account (under the per-user cap) and the reads of one account, each a
// query to the account's shard.
import { randomUUID } from "node:crypto";
import { isDatabaseUnavailable } from "../kernel/db-deadline.js";
import { ServiceError } from "../kernel/errors.js";
import { unary, type UnaryOptions } from "../kernel/grpc.js";
import type { Account } from "../proto/gen/engine/v1/Account.js";
import type { CreateAccountRequest__Output } from "../proto/gen/engine/v1/CreateAccountRequest.js";
import type { EngineHandlers } from "../proto/gen/engine/v1/Engine.js";
import type { ListRangeRequest__Output } from "../proto/gen/engine/v1/ListRangeRequest.js";
import type { Analytics } from "./accounts/risk-queries.js";
import { accountIdFor } from "../kernel/partition.js";
import type { EngineServerDeps } from "./server-deps.js";
import { message, requireUser, unwrap, type AccountCalls } from "./server-wire.js";

type AccountHandlers = Pick<
  EngineHandlers,
  | "CreateAccount"
  | "GetAccount"
  | "GetSummary"
  | "ListPositions"
  | "ListOrders"
  | "ListFunding"
  | "ListBreaches"
  | "ListViolations"
  | "GetAnalytics"
  | "ListPositionHistory"
  | "ListTrades"
>;

type OpeningDeps = Pick<EngineServerDeps, "engine" | "accountCap" | "log">;

export function accountHandlers(deps: OpeningDeps, calls: AccountCalls, options: UnaryOptions): AccountHandlers {
  const { query } = calls;
  /** A `from`/`to`/`limit` list of one account: closed positions or fills. */
  const page = async (r: ListRangeRequest__Output, type: "history" | "trades") => {
    const result = await query<{ data: object[]; has_more: boolean }>(r.user_id, r.account_id, {
      type,
      from: r.from,
      to: r.to,
      limit: r.limit,
      after_id: r.after_id,
    });
    return { data: result.data.map((row) => message(row)), has_more: result.has_more };
  };
  return {
    CreateAccount: unary("CreateAccount", (request) => createAccount(deps, calls, request), options),
    GetAccount: unary("GetAccount", (r) => query(r.user_id, r.account_id, { type: "account" }), options),
    GetSummary: unary("GetSummary", (r) => query(r.user_id, r.account_id, { type: "summary" }), options),
    ListPositions: unary("ListPositions", (r) => query(r.user_id, r.account_id, { type: "positions" }), options),
    ListOrders: unary(
      "ListOrders",
      async (r) => ordersMessage(await query<{ data: object[] }>(r.user_id, r.account_id, { type: "orders" })),
      options,
    ),
    ListFunding: unary("ListFunding", (r) => query(r.user_id, r.account_id, { type: "funding" }), options),
    ListBreaches: unary("ListBreaches", (r) => query(r.user_id, r.account_id, { type: "breaches" }), options),
    ListViolations: unary("ListViolations", (r) => query(r.user_id, r.account_id, { type: "violations" }), options),
    GetAnalytics: unary(
      "GetAnalytics",
      async (r) => analyticsMessage(await query<Analytics>(r.user_id, r.account_id, { type: "analytics" })),
      options,
    ),
    ListPositionHistory: unary("ListPositionHistory", (r) => page(r, "history"), options),
    ListTrades: unary("ListTrades", (r) => page(r, "trades"), options),
  };
}

function ordersMessage(orders: { data: object[] }) {
  return { data: orders.data.map((order) => message(order)) };
}

/** proto3 optionals: null (no value yet) is an absent field on the wire. */
function analyticsMessage(result: Analytics) {
  return {
    closed_positions: result.closed_positions,
    exposure: result.exposure,
    ...(result.win_rate === null ? {} : { win_rate: result.win_rate }),
    ...(result.avg_r_multiple === null ? {} : { avg_r_multiple: result.avg_r_multiple }),
    ...(result.profit_factor === null ? {} : { profit_factor: result.profit_factor }),
  };
}

/** A database failure of the cap's reservation: engine_unavailable when it did not answer, else engine_error. */
function slotFailure(error: unknown): ServiceError {
  return isDatabaseUnavailable(error)
    ? new ServiceError("engine_unavailable", {}, "database did not answer: cannot count the user's accounts")
    : new ServiceError("engine_error", {}, "cannot count the user's accounts");
}

/** Opens an account in a partition this engine owns, its slot under the per-user cap reserved first. */
async function createAccount(
  deps: OpeningDeps,
  calls: AccountCalls,
  request: CreateAccountRequest__Output,
): Promise<Account> {
  const userId = requireUser(request.user_id);
  const accountId = accountIdFor(deps.engine?.index ?? 0, deps.engine?.count ?? 1, randomUUID);
  const cap = deps.accountCap;
  if (cap !== undefined) {
    const reservation = await cap.slots.reserve(userId, accountId, cap.limit).catch((error: unknown) => {
      deps.log.error({ err: error }, "account slot reservation failed");
      throw slotFailure(error);
    });
    if (!reservation.ok) throw new ServiceError("account_limit_reached", { limit: reservation.limit });
  }
  // A call that failed may or may not have opened the account: its slot stays reserved until the account is
  // journaled or the reservation lapses. A refusal (bad plan or venue) opened nothing: its slot is given back.
  const opened = await calls.command(userId, accountId, {
    type: "OpenAccount",
    request: {
      account_id: accountId,
      user_id: userId,
      plan_id: request.plan_id,
      default_venue: request.default_venue ?? null,
      label: request.label ?? null,
    },
  });
  if (opened.kind === "error" && cap !== undefined) {
    await cap.slots.release(accountId).catch((error: unknown) => {
      deps.log.warn({ err: error }, "releasing a refused account's slot failed (it lapses on its own)");
    });
  }
  const reply = unwrap(opened);
  if (!("account" in reply)) throw new Error("not an account reply");
  return calls.query(request.user_id, accountId, { type: "account" });
}
