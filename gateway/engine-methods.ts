// The engine's RPC methods as the gateway calls them, declared once: each camelCase call, the gRPC method it
// makes and how the gateway picks the engine that serves it (docs/scale-out.md). The per-engine client
// (gateway/clients.ts) and the router over all engines (gateway/engine-router.ts) are both derived from it.
import type { EngineDefinition } from "../proto/gen/engine/v1/Engine.js";
import type { Origin } from "./origin.js";

/**
 * How a call finds its engine:
 * - `account`: the owner of `partitionOf(request.account_id)`;
 * - `order`: the owner of the partition `request.order_id` names (`idInPartition`);
 * - `read`: any engine, starting with the next in turn, moving on from one that cannot be reached;
 * - `write`: any engine in turn, moving on only when the call provably never left the gateway (a call cut
 *   after it was sent may have run, and sending it again elsewhere could do it twice).
 */
export type Route = "account" | "order" | "read" | "write";

interface MethodSpec {
  /** The gRPC method of engine.v1.Engine. */
  readonly rpc: keyof EngineDefinition & string;
  readonly route: Route;
  /** The request message has no fields: the call takes only its origin. */
  readonly bare?: true;
  /** The call changes nothing: one cut by a broken session is sent again once (gateway/engine-router.ts). */
  readonly read?: true;
  /**
   * The engine deduplicates the call by a `request_id` the router mints for it (docs/engine.md, "Request ids"):
   * one cut after it was sent is sent again, with the same id, while its partition is handed over.
   */
  readonly deduplicated?: true;
}

export const ENGINE_METHODS = {
  listTickers: { rpc: "ListTickers", route: "read", bare: true, read: true },
  listPlans: { rpc: "ListPlans", route: "read", bare: true, read: true },
  getCalendar: { rpc: "GetCalendar", route: "read", read: true },
  /** Round-robin over the engines that answer: each mints the id in a partition it owns. */
  createAccount: { rpc: "CreateAccount", route: "write" },
  getAccount: { rpc: "GetAccount", route: "account", read: true },
  getSummary: { rpc: "GetSummary", route: "account", read: true },
  listPositions: { rpc: "ListPositions", route: "account", read: true },
  listPositionHistory: { rpc: "ListPositionHistory", route: "account", read: true },
  listTrades: { rpc: "ListTrades", route: "account", read: true },
  listOrders: { rpc: "ListOrders", route: "account", read: true },
  listFunding: { rpc: "ListFunding", route: "account", read: true },
  /** The catch-up log is committed rows of the shared database: any engine reads it, even the owner's down. */
  listEvents: { rpc: "ListEvents", route: "read", read: true },
  listDeliveries: { rpc: "ListDeliveries", route: "read", read: true },
  redeliver: { rpc: "Redeliver", route: "write" },
  listBreaches: { rpc: "ListBreaches", route: "account", read: true },
  listViolations: { rpc: "ListViolations", route: "account", read: true },
  getAnalytics: { rpc: "GetAnalytics", route: "account", read: true },
  placeOrder: { rpc: "PlaceOrder", route: "account", deduplicated: true },
  cancelOrder: { rpc: "CancelOrder", route: "order" },
  amendOrder: { rpc: "AmendOrder", route: "order" },
  closePosition: { rpc: "ClosePosition", route: "account", deduplicated: true },
  /** Runs every pre-trade check of an order against the account as it is; places nothing. */
  testOrder: { rpc: "TestOrder", route: "account", read: true },
  /** The dead-man's switch (docs/risk.md, "Cancel-after"): arm, re-arm or disarm, and read it. */
  setCancelAfter: { rpc: "SetCancelAfter", route: "account" },
  getCancelAfter: { rpc: "GetCancelAfter", route: "account", read: true },
  /** Order lookups: an order id names its partition; the history and a client_id name the account. */
  getOrder: { rpc: "GetOrder", route: "order", read: true },
  listOrderHistory: { rpc: "ListOrderHistory", route: "account", read: true },
  findOrderByClientId: { rpc: "FindOrderByClientId", route: "account", read: true },
  /** Every working order of the account (of one symbol) canceled in one step of its actor. */
  cancelAllOrders: { rpc: "CancelAllOrders", route: "account" },
  /** Every working order canceled and every position closed at the market, in one step of its actor. */
  flatten: { rpc: "Flatten", route: "account" },
} as const satisfies Record<string, MethodSpec>;

type Methods = typeof ENGINE_METHODS;
export type EngineMethod = keyof Methods;
export type EngineRpc = Methods[EngineMethod]["rpc"];

export type RequestOf<R extends EngineRpc> = Parameters<EngineDefinition[R]["requestSerialize"]>[0];
export type ResponseOf<R extends EngineRpc> = ReturnType<EngineDefinition[R]["responseDeserialize"]>;

type CallOf<M extends EngineMethod> = Methods[M] extends { bare: true }
  ? (origin: Origin) => Promise<ResponseOf<Methods[M]["rpc"]>>
  : (request: RequestOf<Methods[M]["rpc"]>, origin: Origin) => Promise<ResponseOf<Methods[M]["rpc"]>>;

/** One function per engine method: `engine.placeOrder(request, origin)`, `engine.listTickers(origin)`. */
export type EngineMethods = { readonly [M in EngineMethod]: CallOf<M> };

/** Routes by account or order read the id from the request: the table may only name requests that carry it. */
type Carries<M extends EngineMethod, Field extends string> =
  RequestOf<Methods[M]["rpc"]> extends { [K in Field]?: string } ? true : false;
type RouteCarriesItsId<M extends EngineMethod> = Methods[M]["route"] extends "account"
  ? Carries<M, "account_id">
  : Methods[M]["route"] extends "order"
    ? Carries<M, "order_id">
    : true;
/** `true` only when every entry's route can read its id: the compiler refuses the table otherwise. */
export const ROUTES_CARRY_THEIR_IDS: false extends { [M in EngineMethod]: RouteCarriesItsId<M> }[EngineMethod]
  ? never
  : true = true;

/** The request fields of a call, `{}` for a bare one. */
export type AnyRequest = RequestOf<EngineRpc>;

/**
 * The table's functions over one `send`: `send(method, request, origin)` makes the call (one engine's client,
 * or the router picking one).
 */
export function engineMethods(
  send: (method: EngineMethod, request: AnyRequest, origin: Origin) => Promise<unknown>,
): EngineMethods {
  const methods: Record<string, unknown> = {};
  for (const [method, spec] of Object.entries(ENGINE_METHODS) as [EngineMethod, MethodSpec][]) {
    methods[method] =
      spec.bare === true
        ? (origin: Origin) => send(method, {}, origin)
        : (request: AnyRequest, origin: Origin) => send(method, request, origin);
  }
  return methods as EngineMethods;
}
