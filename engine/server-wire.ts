// What the engine.v1 handlers share: the caller and the account as the core takes them, a command or query
// sent to the account's shard, and core replies shaped as proto messages (null fields left out, errors
// thrown as registry errors).
import { ServiceError } from "../kernel/errors.js";
import { isUuid } from "../kernel/uuid.js";
import type { AccountQuery, EngineTypes } from "./trading-core.js";
import type { Command, Reply } from "./core.js";
import type { ShardRuntime } from "./shard/runtime.js";

type WithoutNulls<T> = { [K in keyof T]: Exclude<T[K], null> | undefined };

/** Core records use null for "absent"; proto messages leave the field out. */
export function message<T extends object>(record: T): WithoutNulls<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (value !== null) out[key] = value;
  return out as WithoutNulls<T>;
}

/** A core reply that is an error becomes the registry error; anything else is returned. */
export function unwrap<R extends Reply>(reply: R): Exclude<R, { kind: "error" }> {
  if (reply.kind === "error") throw new ServiceError(reply.code, { ...reply.fields });
  return reply as Exclude<R, { kind: "error" }>;
}

/** An account or order id as the shards key it (lower case); not_found when it is no UUID. */
export function accountIdOf(value: string): string {
  const id = value.toLowerCase();
  if (!isUuid(id)) throw new ServiceError("not_found");
  return id;
}

export function requireUser(userId: string): string {
  if (userId === "") throw new ServiceError("unauthorized");
  return userId;
}

/** A request of one account: its caller, and the rest with the account id as the shards key it. */
export function accountRequest<R extends { user_id: string; account_id: string }>(
  r: R,
): { userId: string; request: Omit<R, "user_id"> & { account_id: string } } {
  const { user_id: userId, ...request } = r;
  return { userId, request: { ...request, account_id: accountIdOf(r.account_id) } };
}

/** Commands and queries of one account, sent to its shard on behalf of a caller. */
export interface AccountCalls {
  command: (userId: string, accountId: string, command: Command) => Promise<Reply>;
  query: <R>(userId: string, accountId: string, query: AccountQuery) => Promise<R>;
}

export function accountCalls(runtime: ShardRuntime<EngineTypes>): AccountCalls {
  return {
    command: async (userId, accountId, command) =>
      runtime.command(accountIdOf(accountId), { userId: requireUser(userId), command }),
    query: async <R>(userId: string, accountId: string, query: AccountQuery): Promise<R> =>
      (await runtime.query(accountIdOf(accountId), { userId: requireUser(userId), query })) as R,
  };
}
