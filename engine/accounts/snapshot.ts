// An account's state as a snapshot (docs/engine.md, "Snapshots"): JSON the shard stores every so many events,
// so a restart replays only the events after it instead of the account's whole journal. Its tables become
// entry lists; restoring makes the state as a fresh one is made (`accountStateFrom`: the same field order, so
// the same hidden class) and writes the snapshot over it, makes the tables Maps again, shares the plan object
// (`internPlan`) and the order objects the working tables point to (the same objects as `orders`, as `apply`
// keeps them), and carries the memory bookkeeping of accounts/retention.ts, so a restored actor forgets what the
// live one would have. The BigInt notionals of positions and history rows travel as decimal strings.
import { exportRetention, importRetention, type RetentionSnapshot } from "./retention.js";
import type { Order } from "../basics/order-types.js";
import type { ClosedPosition, Position } from "../basics/position-types.js";
import { accountStateFrom, type AccountState, type IdempotencyRecord } from "../basics/account-state.js";
import type { AccountOpened } from "../basics/events.js";
import type { Table } from "../basics/overlay-table.js";

/** Bumped when the shape changes: a snapshot of another version is ignored (the journal is replayed instead). */
export const SNAPSHOT_VERSION = 1;

/**
 * The tables a snapshot carries, as entry lists. `stop_losses` (the working reduce-only STOP orders) is an index
 * of `working` just as `reduce_only` is, kept by the same step of `apply` (core/apply.ts, `putOrder`): it is
 * carried because version 1's shape has it, and `reduce_only`, not in that shape, is rebuilt from `working` on
 * restore (DERIVED). Both ways give the same state; handling both alike would change the shape, that is a new
 * SNAPSHOT_VERSION (every stored snapshot refused, each account replayed from its whole journal once).
 */
const TABLES = [
  "orders",
  "working",
  "expiries",
  "client_ids",
  "positions",
  "stop_losses",
  "order_exposure",
  "first_stops",
] as const satisfies readonly (keyof AccountState)[];

type TableKey = (typeof TABLES)[number];

/**
 * Scalar fields added to the state since SNAPSHOT_VERSION 1, with the value every state had before they
 * existed (docs/engine.md, "Snapshots").
 */
const ADDED_FIELDS = { cancel_after: null } as const satisfies Partial<Record<keyof AccountState, unknown>>;

/**
 * What a snapshot does not carry as it is: the bookkeeping goes apart (`retention`), and the `reduce_only`
 * index is rebuilt from `working` (see TABLES for why `stop_losses` is carried instead).
 */
const DERIVED = ["retention", "reduce_only"] as const satisfies readonly (keyof AccountState)[];

/** The fields `restoreState` does not take from a snapshot's `fields` as they are (the plan is interned). */
const NOT_COPIED = new Set<string>([...TABLES, ...DERIVED, "plan"]);

export interface AccountSnapshot {
  version: number;
  /** The state's scalar fields and lists, as they are. */
  fields: Record<string, unknown>;
  /** Each table as its entries, in their order. */
  tables: Record<TableKey, [unknown, unknown][]>;
  retention: RetentionSnapshot;
}

/** The snapshot of a live state (its tables must be Maps: never a decision's draft). */
export function snapshotOf(state: AccountState): AccountSnapshot {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) {
    if (!(TABLES as readonly string[]).includes(key) && !(DERIVED as readonly string[]).includes(key)) {
      fields[key] = value;
    }
  }
  fields.closed_positions = state.closed_positions.map((row) => ({
    ...row,
    entry_notional: row.entry_notional.toString(),
    exit_notional: row.exit_notional.toString(),
  }));
  const tables = {} as Record<TableKey, [unknown, unknown][]>;
  for (const key of TABLES) tables[key] = [...(state[key] as Table<unknown, unknown>)];
  tables.positions = [...state.positions].map(([key, position]) => [
    key,
    {
      ...position,
      opened_notional: position.opened_notional.toString(),
      closed_notional: position.closed_notional.toString(),
    },
  ]);
  return { version: SNAPSHOT_VERSION, fields, tables, retention: exportRetention(state) };
}

type Stringified<T, K extends keyof T> = Omit<T, K> & { [P in K]: string };

/** The state a snapshot (parsed from its JSON) was taken of; undefined when it is of another version. */
export function restoreState(snapshot: AccountSnapshot): AccountState | undefined {
  if (snapshot.version !== SNAPSHOT_VERSION) return undefined;
  const fields = snapshot.fields;
  // Made by accountStateFrom as a fresh state is, then written over in place: one literal gives every state
  // its fields in one order (one hidden class for decide and apply). The identity fields it is opened with
  // are the account's AccountOpened's, which nothing writes after.
  const state = accountStateFrom(openingOf(fields as unknown as AccountState));
  const mutable = state as unknown as Record<string, unknown>;
  for (const key of Object.keys(state)) {
    if (NOT_COPIED.has(key)) continue;
    // A field the state gained after the version was fixed reads as its initial value from an older snapshot:
    // no such snapshot can hold anything else (the events that set it did not exist when it was written).
    mutable[key] = key in fields ? fields[key] : (ADDED_FIELDS as Record<string, unknown>)[key];
  }
  for (const key of TABLES) mutable[key] = new Map(snapshot.tables[key]);
  const positions = snapshot.tables.positions as [
    string,
    Stringified<Position, "opened_notional" | "closed_notional">,
  ][];
  mutable.positions = new Map(
    positions.map(([key, p]) => [
      key,
      { ...p, opened_notional: BigInt(p.opened_notional), closed_notional: BigInt(p.closed_notional) },
    ]),
  );
  const closed = fields.closed_positions as Stringified<ClosedPosition, "entry_notional" | "exit_notional">[];
  mutable.closed_positions = closed.map((row) => ({
    ...row,
    entry_notional: BigInt(row.entry_notional),
    exit_notional: BigInt(row.exit_notional),
  }));
  // The working tables hold the very objects of `orders` (copy-on-write orders are replaced, never mutated).
  for (const table of [state.working, state.stop_losses]) {
    for (const id of table.keys()) {
      const order = state.orders.get(id);
      if (order === undefined) throw new Error(`snapshot of ${state.account_id}: working order ${id} is not in orders`);
      table.set(id, order);
    }
  }
  const reduceOnly = new Map<string, Order>();
  for (const order of state.working.values()) if (order.reduce_only) reduceOnly.set(order.order_id, order);
  mutable.reduce_only = reduceOnly;
  mutable.retention = importRetention(snapshot.retention);
  datedRecords(state.client_ids as Map<string, IdempotencyRecord>, snapshot.retention);
  return state;
}

/** The opening event of the account a snapshot's fields are of. */
function openingOf(fields: AccountState): AccountOpened {
  return {
    type: "AccountOpened",
    at: fields.created_at,
    account_id: fields.account_id,
    user_id: fields.user_id,
    plan: fields.plan,
    label: fields.label,
    default_venue: fields.default_venue,
    allowed_venues: [...fields.allowed_venues],
    starting_balance: fields.starting_balance,
  };
}

/**
 * Gives each `client_id` record of a snapshot its `recorded_at` where the record lacks one: from the snapshot's
 * `clientIds` list where it has one, else the latest event time (the record then stays its full window).
 */
function datedRecords(records: Map<string, IdempotencyRecord>, retention: RetentionSnapshot): void {
  let times: Map<string, number> | undefined;
  for (const [clientId, record] of records) {
    if (typeof record.recorded_at === "number") continue;
    // Made only for a snapshot whose records lack their time: every record of a current one has it.
    times ??= new Map(retention.clientIds ?? []);
    records.set(clientId, { ...record, recorded_at: times.get(clientId) ?? retention.lastAt });
  }
}
