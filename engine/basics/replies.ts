// What `decide` answers (the API answer the shell sends back): order replies carry wire records, expected
// refusals are typed errors the shell maps to HTTP through the error registry (kernel/errors.ts).
import type { Issue } from "../../kernel/errors.js";
import type { RiskHeadroom, Violation } from "./risk-types.js";
import type { FillRecord, OrderRecord } from "./order-records.js";

export type ErrorReplyCode = "not_found" | "conflict" | "invalid_payload" | "order_limit_reached";

/** An expected refusal: 404, 409 (conflict, order_limit_reached) or 400 with `fields` next to `error` in the body. */
export interface ErrorReply {
  kind: "error";
  code: ErrorReplyCode;
  fields: Readonly<Record<string, unknown>>;
}

/** The body of POST /v1/order and POST /v1/position/close. */
export interface PlaceOrderResponse {
  order: OrderRecord;
  fills: FillRecord[];
  violations: Violation[];
  /** The room the order leaves under the plan's limits (docs/risk.md). */
  risk_headroom: RiskHeadroom;
}

/** POST /v1/order/test: every check of the order, nothing placed. */
export interface TestOrderReply {
  kind: "tested";
  violations: Violation[];
  risk_headroom: RiskHeadroom;
}

/** created → 201; replayed (same client_id and body) → 200 with Idempotent-Replayed; rejected → 200. */
export interface PlacedReply extends PlaceOrderResponse {
  kind: "created" | "replayed" | "rejected";
}

export type PlaceOrderReply = PlacedReply | ErrorReply;

/** The body of DELETE and PATCH /v1/order/:order_id. */
export type OrderReply = { kind: "ok"; order: OrderRecord } | ErrorReply;

export function invalid(issues: Issue[]): ErrorReply {
  return { kind: "error", code: "invalid_payload", fields: { issues } };
}

export function notFound(): ErrorReply {
  return { kind: "error", code: "not_found", fields: {} };
}

export function conflict(fields: Readonly<Record<string, unknown>>): ErrorReply {
  return { kind: "error", code: "conflict", fields };
}

/** The account already holds `limit` working orders (docs/engine.md, "Limits"). */
export function orderLimitReached(limit: number): ErrorReply {
  return { kind: "error", code: "order_limit_reached", fields: { limit } };
}
