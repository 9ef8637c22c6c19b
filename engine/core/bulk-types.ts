// What cancel-all and flatten are asked and answer (engine/core/bulk.ts decides them).
import type { Issue } from "../../kernel/errors.js";
import type { OrderRecord, FillRecord } from "../basics/order-records.js";
import type { ErrorReply } from "../basics/replies.js";
import type { Violation } from "../basics/risk-types.js";
import type { Venue } from "../market/types.js";

/** An open position as GET /v1/account/{id}/positions lists it. */
type OpenPositionRow = ReturnType<typeof openPositions>["data"][number];
import type { openPositions } from "../accounts/queries.js";

/** CancelAll: every working order of the account, or of one symbol. */
export interface CancelAllRequest {
  account_id: string;
  /** Only this symbol's orders; every symbol when absent or empty. */
  symbol?: string | null;
}

/**
 * Flatten: the working orders that protect no open position canceled, then every open position closed at the
 * market, each keeping its protective orders until its close fills it completely.
 */
export interface FlattenRequest {
  account_id: string;
}

export type CancelAllReply = { kind: "canceled"; orders: OrderRecord[] } | ErrorReply;

/** What flatten did for one position open once the orders that protect none were canceled. */
export interface FlattenClose {
  position_id: string;
  symbol: string;
  venue: Venue;
  /** The closing MARKET order (FILLED, CANCELED with its IOC rest, or REJECTED); null when none was placed. */
  order: OrderRecord | null;
  fills: FillRecord[];
  /** Why the closing order was rejected (e.g. `market_closed`); empty otherwise. */
  violations: Violation[];
  /** Why no closing order could be placed (the symbol has no price yet); empty otherwise. */
  issues: Issue[];
  /**
   * The position's protective orders (working reduce-only orders on its symbol and venue) still working after
   * the flatten, in placement order: empty when its close filled it completely (they were canceled, and are in
   * `canceled`) or a termination canceled them.
   */
  kept_orders: OrderRecord[];
}

export type FlattenReply =
  { kind: "flattened"; canceled: OrderRecord[]; closes: FlattenClose[]; positions: OpenPositionRow[] } | ErrorReply;
