// engine.v1's order lookups (docs/engine.md, "The order archive"): one order by id, the account's order history
// and the order of a client_id. An order is in its account actor's memory (working, or final and not forgotten
// yet) or in the order archive (forgotten: written with the events of the decision that forgot it). Each call asks
// the actor first, then the archive: an order the actor forgets in between is already in the archive when the
// second read runs (the actor answers only after the batch that forgot it committed), so nothing falls between.
import { ServiceError } from "../kernel/errors.js";
import { unary, type UnaryOptions } from "../kernel/grpc.js";
import type { EngineHandlers } from "../proto/gen/engine/v1/Engine.js";
import type { OrderRecord } from "./basics/order-records.js";
import type { ShardRuntime } from "./shard/runtime.js";
import type { OrderArchive } from "./store/order-archive.js";
import { listQueryOf, type EngineTypes } from "./trading-core.js";
import { accountIdOf, message, requireUser, type AccountCalls } from "./server-wire.js";

/** A `client_id` as an order may carry one (engine/orders/request.ts): 1 to 64 printable ASCII characters. */
const CLIENT_ID = /^[\x20-\x7e]{1,64}$/;
const CLIENT_ID_MESSAGE = "must be 1 to 64 printable ASCII characters";

type LookupHandlers = Pick<EngineHandlers, "GetOrder" | "ListOrderHistory" | "FindOrderByClientId">;

/** What the lookups read: the shards (the actors' memory) and the archive. */
export interface LookupDeps {
  runtime: ShardRuntime<EngineTypes>;
  orders: OrderArchive;
}

/** `a` before `b` in the history's order: created_at, then order_id. */
export function beforeInHistory(a: OrderRecord, b: OrderRecord): boolean {
  const at = Date.parse(a.created_at);
  const bt = Date.parse(b.created_at);
  return at < bt || (at === bt && a.order_id < b.order_id);
}

/**
 * Two pages of one (created_at, order_id) order merged: the first `limit` distinct orders (an order forgotten
 * between the two reads is in both, the same record) and whether more follow. Each input holds at most
 * `limit + 1` rows from the same cursor, so the merge's first `limit + 1` are the list's.
 */
export function mergeHistory(
  memory: readonly OrderRecord[],
  archived: readonly OrderRecord[],
  limit: number,
): { data: OrderRecord[]; has_more: boolean } {
  const merged: OrderRecord[] = [];
  const seen = new Set<string>();
  let i = 0;
  let j = 0;
  while (merged.length <= limit && (i < memory.length || j < archived.length)) {
    const a = memory[i];
    const b = archived[j];
    const takeMemory = b === undefined || (a !== undefined && !beforeInHistory(b, a));
    const next = takeMemory ? a : b;
    if (takeMemory) i++;
    else j++;
    if (next === undefined || seen.has(next.order_id)) continue;
    seen.add(next.order_id);
    merged.push(next);
  }
  return { data: merged.slice(0, limit), has_more: merged.length > limit };
}

function isNotFound(error: unknown): boolean {
  return error instanceof ServiceError && error.code === "not_found";
}

export function orderLookupHandlers(deps: LookupDeps, calls: AccountCalls, options: UnaryOptions): LookupHandlers {
  const { runtime, orders } = deps;

  const getOrder = async (userIdOf: string, orderIdOf: string) => {
    const userId = requireUser(userIdOf);
    const orderId = accountIdOf(orderIdOf);
    try {
      const record = await runtime.queryByKey(orderId, { userId, query: { type: "order", order_id: orderId } });
      return { order: message(record as OrderRecord) };
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    // Another user's order answers exactly as an unknown one.
    const archived = await orders.find(orderId);
    if (archived === undefined || archived.userId !== userId) throw new ServiceError("not_found");
    return { order: message(archived.record as OrderRecord) };
  };

  return {
    GetOrder: unary("GetOrder", (r) => getOrder(r.user_id, r.order_id), options),
    ListOrderHistory: unary(
      "ListOrderHistory",
      async (r) => {
        const range = { from: r.from, to: r.to, limit: r.limit, after_id: r.after_id };
        const memory = await calls.query<{ data: OrderRecord[] }>(r.user_id, r.account_id, {
          type: "orderHistory",
          ...range,
        });
        // The actor checked the owner and the bounds (or refused the call).
        const query = listQueryOf(range);
        const archived = (await orders.page(accountIdOf(r.account_id), {
          from: query.from,
          to: query.to,
          afterId: query.after_id ?? null,
          limit: query.limit + 1,
        })) as OrderRecord[];
        const page = mergeHistory(memory.data, archived, query.limit);
        return { data: page.data.map((order) => message(order)), has_more: page.has_more };
      },
      options,
    ),
    FindOrderByClientId: unary(
      "FindOrderByClientId",
      async (r) => {
        const clientId = r.client_id;
        if (!CLIENT_ID.test(clientId)) {
          throw ServiceError.invalid([{ path: "client_id", message: CLIENT_ID_MESSAGE }]);
        }
        const memory = await calls.query<{ data: OrderRecord | null }>(r.user_id, r.account_id, {
          type: "clientOrder",
          client_id: clientId,
        });
        const archived = (await orders.byClientId(accountIdOf(r.account_id), clientId)) as OrderRecord | undefined;
        const candidates = [memory.data, archived].filter((o): o is OrderRecord => o !== null && o !== undefined);
        const newest = candidates.reduce<OrderRecord | undefined>(
          (best, order) => (best === undefined || beforeInHistory(best, order) ? order : best),
          undefined,
        );
        return { data: newest === undefined ? [] : [message(newest)] };
      },
      options,
    ),
  };
}
