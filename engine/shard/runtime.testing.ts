// Test-only helpers for the shard runtime's tests: the ledger core, account ids by shard (a database per test
// comes from engine/store/fresh-database.testing.ts).
import { randomUUID } from "node:crypto";
import { createLogger, type Logger } from "../../kernel/log.js";
import { shardOf } from "../../kernel/partition.js";
import { startShards, type ShardRuntime, type StartShardsOptions } from "./runtime.js";
import type { LedgerState, LedgerTypes } from "./ledger-core.testing.js";

export const LEDGER_CORE = new URL("./ledger-core.testing.ts", import.meta.url);

export const silentLog: Logger = createLogger("engine", "silent");

/** Starts a ledger runtime (2 shards, silent) with `overrides`. */
export function startLedger(
  databaseUrl: string,
  overrides: Partial<StartShardsOptions<LedgerTypes>> = {},
): Promise<ShardRuntime<LedgerTypes>> {
  return startShards<LedgerTypes>({ shards: 2, databaseUrl, coreModule: LEDGER_CORE, log: silentLog, ...overrides });
}

/** `count` fresh account ids that all live on `shard` of `shards`. */
export function accountsOnShard(shard: number, shards: number, count: number): string[] {
  const ids: string[] = [];
  while (ids.length < count) {
    const id = randomUUID();
    if (shardOf(id, shards) === shard) ids.push(id);
  }
  return ids;
}

/** Opens every account (user `u-<n>`). */
export async function openAll(runtime: ShardRuntime<LedgerTypes>, ids: readonly string[]): Promise<void> {
  await Promise.all(ids.map((id, n) => runtime.command(id, { type: "open", userId: `u-${n}` })));
}

/** The ledger state of an account (null before it is opened). */
export async function stateOf(runtime: ShardRuntime<LedgerTypes>, accountId: string): Promise<LedgerState | null> {
  return (await runtime.query(accountId, { type: "state" })) as LedgerState | null;
}
