// The messages between the main thread and a shard thread: a discriminated union on `kind`, each carrying
// the `requestId` of the call it belongs to. Everything here is plain data (structured clone). The main thread
// hands the requests of one event-loop turn to a shard as one piscina task (`ShardTask`), answered by one
// `ShardTaskResult`: one structured clone each way per turn instead of one per request.
import type { ErrorCode } from "../../kernel/errors.js";
import type { CoreTypes } from "./core-contract.js";
import type { BatchStats } from "./batch-stats.js";
import type { OutboxRow } from "../store/journal.js";
import type { Fence } from "../store/leases.js";

/** An error crossing the thread boundary (a `ServiceError` on either side). */
export interface WireError {
  code: ErrorCode;
  message: string;
  fields: Record<string, unknown>;
}

/** Whom a command or query is for: an account, or an id one of its events made addressable. */
export type Address = { accountId: string } | { key: string };

/** Main thread → shard: one message of the shard's mailbox (handed over in a `ShardTask`). */
export type ShardRequest<T extends CoreTypes = CoreTypes> =
  /** Waits for the shard's rebuild from the journal (sent once at start). */
  | { kind: "start"; requestId: number }
  /**
   * `traceparent`: the W3C trace context of the caller's span, present only when that span is sampled.
   * `deadline`: the caller's deadline (epoch ms on this host's wall clock); a command still undecided when it
   * passes is not decided but answered `expired` (docs/engine.md, "Deadlines").
   */
  | { kind: "command"; requestId: number; to: Address; command: T["command"]; traceparent?: string; deadline?: number }
  /** Read-only; ordered with the commands (reads its own account's earlier writes); skipped past `deadline` too. */
  | { kind: "query"; requestId: number; to: Address; query: T["query"]; traceparent?: string; deadline?: number }
  /** Broadcast: every shard applies it to every account it owns. */
  | { kind: "market"; requestId: number; update: T["update"] }
  /** Drains the mailbox and closes the shard's database pool; later requests fail. */
  | { kind: "stop"; requestId: number }
  /**
   * Starts (`on`) or stops posting the account's committed outbox rows as `outbox` notices (docs/streaming.md).
   * Taken at once, outside the mailbox: every batch whose commit ends after the answer posts its rows.
   */
  | { kind: "watch"; requestId: number; accountId: string; on: boolean }
  /**
   * A standby's shard (docs/scale-out.md, "Standbys"): applies what the journal got since its last look, by the
   * cheap look (`changedSince`). Queued in the mailbox, never in a batch.
   */
  | { kind: "follow"; requestId: number }
  /**
   * A standby's shard once its engine took the partitions: the exact look (`latestSeqs`), then appends fenced by
   * `fence`, the clock running and calls served. Queued in the mailbox, never in a batch.
   */
  | { kind: "serve"; requestId: number; fence: Fence };

/**
 * A shard to itself, never across the thread boundary: the clock passed the wake time (`ActorCore.wakeAt`) of
 * some of its accounts. Queued in the mailbox like the requests above, so it is ordered with them, decided in
 * a batch and journaled; answered (to the shard) with `marketApplied`.
 */
export interface ClockRequest {
  kind: "clock";
  requestId: number;
}

/** What a shard's mailbox holds: the main thread's requests (but `watch`) and its own clock requests. */
export type MailboxRequest<T extends CoreTypes = CoreTypes> =
  Exclude<ShardRequest<T>, { kind: "watch" | "follow" | "serve" }> | ClockRequest;

/** A standby's step through the journal (`follow` or `serve`). */
export type CatchUpRequest = Extract<ShardRequest, { kind: "follow" | "serve" }>;

/** The trace context a request carries (commands and queries of a sampled trace), or undefined. */
export function traceparentOf(request: MailboxRequest): string | undefined {
  return request.kind === "command" || request.kind === "query" ? request.traceparent : undefined;
}

/** Shard → main thread: the answer to one request. Replies are sent only after their batch committed. */
export type ShardResponse<T extends CoreTypes = CoreTypes> =
  | { kind: "started"; requestId: number; shard: number; threadId: number; accounts: number; events: number }
  | { kind: "commandReply"; requestId: number; reply: T["reply"] }
  | { kind: "queryResult"; requestId: number; result: T["queryResult"] }
  /** `faults`: accounts whose `onMarket` threw (logged; they got no events). */
  | { kind: "marketApplied"; requestId: number; shard: number; accounts: number; events: number; faults: number }
  | { kind: "stopped"; requestId: number; shard: number }
  | { kind: "watched"; requestId: number }
  /** A `follow` or `serve` done: the accounts it brought up to date and the events it applied. */
  | { kind: "followed"; requestId: number; shard: number; accounts: number; events: number; ms: number }
  /** A command or query whose deadline passed before it was decided: nothing was done for it. */
  | { kind: "expired"; requestId: number }
  | { kind: "failed"; requestId: number; error: WireError };

/** Which response answers which request. */
export interface ResponseKindOf {
  start: "started";
  command: "commandReply";
  query: "queryResult";
  market: "marketApplied";
  stop: "stopped";
  watch: "watched";
  follow: "followed";
  serve: "followed";
}

/**
 * Main thread → shard: one piscina task, the requests to one shard of one event-loop turn in the order they
 * were made. The shard queues them in that order, at once, so they stay contiguous in its mailbox.
 */
export interface ShardTask<T extends CoreTypes = CoreTypes> {
  kind: "requests";
  requests: ShardRequest<T>[];
}

/**
 * Shard → main thread: the result of one task, `responses[i]` answering `requests[i]` (each a success or
 * `failed`: one request's error never fails its neighbours).
 */
export interface ShardTaskResult<T extends CoreTypes = CoreTypes> {
  kind: "responses";
  responses: ShardResponse<T>[];
}

/** Shard → main thread, unsolicited (piscina emits them as the pool's `message` event). */
export type ShardNotice =
  /**
   * Sent every few seconds while notices are on, and once more when the shard stops: what happened since the
   * last one, and the shard as it is.
   */
  | {
      kind: "stats";
      shard: number;
      /** Committed events counted by the core's `tally` since the last stats notice: series key → count. */
      tallies: Record<string, number>;
      /** The batches taken since the last stats notice, folded into the engine's histogram buckets. */
      batches: BatchStats;
      /** Accounts per `stateOf` label, now. */
      states: Record<string, number>;
      /** The shard thread's event-loop delay since the last stats notice (perf_hooks), in milliseconds. */
      loopLagP99Ms: number;
      loopLagMaxMs: number;
    }
  | { kind: "log"; shard: number; level: "info" | "warn" | "error"; message: string; fields: Record<string, unknown> }
  /** The outbox rows of watched accounts a batch just committed, in commit order. */
  | { kind: "outbox"; shard: number; rows: OutboxRow[] }
  /**
   * A batch touching these watched accounts failed to commit: a commit that timed out may still land, and its
   * rows then reach the outbox without a notice. Their watchers read the outbox again.
   */
  | { kind: "outboxUncertain"; shard: number; accounts: string[] };

export function isShardNotice(value: unknown): value is ShardNotice {
  if (typeof value !== "object" || value === null || !("kind" in value)) return false;
  return value.kind === "stats" || value.kind === "log" || value.kind === "outbox" || value.kind === "outboxUncertain";
}
