// Group commit: a batch is decided in arrival order (each message sees the events of the ones before it),
// journaled in one transaction, and only then answered. A failed commit answers the whole batch with
// engine_error (engine_unavailable when the database did not answer in time or could not be reached) and evicts
// the accounts it touched; they are reloaded from the journal before they are used again, so no uncommitted
// event survives. A commit that timed out may still land on the server: the reload then finds its events, and a
// batch decided before it landed collides with it on (account_id, seq) and is refused whole, so nothing is
// applied twice. A batch ends before a command that needs a spent key looked up (`RecallNeeded`): the messages
// before it are committed and answered, and the shard looks the key up and decides the rest after (shard.ts).
import { performance } from "node:perf_hooks";
import { isDatabaseUnavailable } from "../../kernel/db-deadline.js";
import { ServiceError, errorText } from "../../kernel/errors.js";
import { endSpan } from "../../kernel/tracing.js";
import { isDuplicateSeq, type OutboxRow } from "../store/journal.js";
import { isFenced } from "../store/leases.js";
import type { CoreTypes, Recalled } from "./core-contract.js";
import type { Decider, Pending, RecallNeeded } from "./decide.js";
import { failed, STOPPED, toWireError } from "./failures.js";
import type { MailboxRequest, ShardResponse } from "./protocol.js";
import type { AccountReload, ShardJournal } from "./reload.js";
import type { ShardSnapshots } from "./snapshots.js";
import type { ShardStatsCounter } from "./stats.js";
import { endShardSpan, startCommitSpan, startDecideSpan } from "./tracing.js";

export interface BatchItem<T extends CoreTypes> {
  request: MailboxRequest<T>;
  /** The spent key looked up for this command (`RecallNeeded`), once it was. */
  recalled?: Recalled;
}

/**
 * A batch's answers, in order. With `recall`, only the first `responses.length` messages were decided (and
 * committed): the next one needs that key looked up, and it and the ones after it are still to decide.
 */
export interface BatchResult<T extends CoreTypes> {
  responses: ShardResponse<T>[];
  recall?: RecallNeeded;
}

export interface GroupCommitOptions<T extends CoreTypes> {
  journal: ShardJournal;
  reload: AccountReload<T>;
  decider: Decider<T>;
  snapshots: ShardSnapshots<T>;
  stats: ShardStatsCounter<T>;
  log: (level: "error", message: string, fields: Record<string, unknown>) => void;
  /** The batch's outbox rows, once committed (before its answers go out). */
  committed?: (rows: readonly OutboxRow[]) => void;
  /** The accounts a batch touched whose commit failed (it may still land). */
  uncertain?: (accounts: ReadonlySet<string>) => void;
}

type FailureCode = "engine_error" | "engine_unavailable";

/** The same failure for every message of the batch. */
function failAll<T extends CoreTypes>(
  items: readonly BatchItem<T>[],
  message: string,
  code: FailureCode = "engine_error",
): ShardResponse<T>[] {
  const wire = toWireError(new ServiceError(code, {}, message));
  return items.map((item) => failed(item.request.requestId, wire));
}

/** Why the journal refused a batch: what is logged, and what every message of the batch is answered. */
function commitFailure(error: unknown): { log: string; answer: string; code: FailureCode } {
  // Refused by the lease fence: this engine no longer holds (or has not renewed) a partition of the batch.
  if (isFenced(error)) {
    return {
      log: "journal refused the batch: partition lease not held",
      answer: "partition lease not held",
      code: "engine_unavailable",
    };
  }
  // No answer in time (or no connection): the commit may or may not land; the callers may retry.
  if (isDatabaseUnavailable(error)) {
    return {
      log: "commit got no answer from the database",
      answer: "database did not answer the commit",
      code: "engine_unavailable",
    };
  }
  const log = isDuplicateSeq(error)
    ? "journal refused a duplicate seq (second owner, or a commit that timed out and landed late)"
    : "commit failed";
  return { log, answer: "commit failed", code: "engine_error" };
}

export class GroupCommit<T extends CoreTypes> {
  constructor(private readonly options: GroupCommitOptions<T>) {}

  /** The responses of a batch, in order; all of them failures when the batch could not be committed. */
  async run(items: readonly BatchItem<T>[], depth: number): Promise<BatchResult<T>> {
    const { reload, decider, stats } = this.options;
    try {
      await reload.ensureCurrent();
    } catch (error) {
      this.options.log("error", "shard cannot load its accounts", { err: errorText(error) });
      stats.batches.observe(depth, items.length, 0, null, false);
      const responses = isDatabaseUnavailable(error)
        ? failAll(items, "database did not answer: shard cannot load its accounts", "engine_unavailable")
        : failAll(items, "shard cannot load its accounts");
      return { responses };
    }
    const pending: Pending = {
      events: [],
      outbox: [],
      archived: [],
      spent: [],
      accounts: [],
      touched: new Set(),
      decided: [],
      applying: undefined,
      tallies: stats.batchTallies(),
    };
    let decided: BatchResult<T>;
    try {
      decided = this.decideAll(items, pending);
    } catch (error) {
      this.drop(pending, error);
      stats.batches.observe(depth, items.length, 0, null, false);
      return { responses: failAll(items, "engine fault") };
    }
    let commitMs: number | null = null;
    if (pending.events.length > 0 || pending.accounts.length > 0) {
      const started = performance.now();
      const span = startCommitSpan(items, pending.events.length, pending.accounts.length);
      try {
        await this.options.journal.append(
          pending.accounts,
          pending.events,
          pending.outbox,
          pending.archived,
          pending.spent,
        );
        commitMs = performance.now() - started;
        span?.end();
      } catch (error) {
        if (span !== undefined) endSpan(span, error);
        this.options.uncertain?.(pending.touched);
        reload.evict(pending.touched);
        decider.undecide(pending);
        const failure = commitFailure(error);
        this.options.log("error", failure.log, { err: errorText(error), events: pending.events.length });
        stats.batches.observe(depth, items.length, pending.events.length, performance.now() - started, false);
        return { responses: failAll(items, failure.answer, failure.code) };
      }
    }
    if (commitMs !== null) {
      if (pending.outbox.length > 0) this.options.committed?.(pending.outbox);
      this.options.snapshots.write(pending.touched);
    }
    stats.committed(pending.tallies);
    stats.batches.observe(depth, decided.responses.length, pending.events.length, commitMs, true);
    return decided;
  }

  /**
   * Decides every message in order, up to one that needs a spent key looked up; nothing after a stop request runs.
   * Throws when the core's `apply` threw.
   */
  private decideAll(items: readonly BatchItem<T>[], pending: Pending): BatchResult<T> {
    const responses: ShardResponse<T>[] = [];
    const stopAt = items.findIndex((item) => item.request.kind === "stop");
    for (let index = 0; index < items.length; index++) {
      const item = items[index] as BatchItem<T>;
      if (stopAt >= 0 && index > stopAt) {
        responses.push(failed(item.request.requestId, STOPPED));
        continue;
      }
      const span = startDecideSpan(item.request);
      const response = this.options.decider.decide(item.request, pending, index < items.length - 1, item.recalled);
      if (response.kind === "recall") {
        span?.end();
        return { responses, recall: response };
      }
      if (span !== undefined) endShardSpan(span, response);
      responses.push(response);
    }
    return { responses };
  }

  /**
   * `apply` threw: the core has a bug and the touched states are half-applied. Nothing is journaled. The other
   * accounts of the batch are retried like after a failed commit; the one it threw for is not, and the clock
   * leaves it alone until its next decision: deciding it again would throw again, every second, failing each
   * batch it joins. It is decided again when a command or a price reaches it.
   */
  private drop(pending: Pending, error: unknown): void {
    const { reload, decider } = this.options;
    const culprit = pending.applying;
    if (culprit !== undefined) pending.touched.delete(culprit);
    reload.evict(pending.touched);
    if (culprit !== undefined) reload.evict([culprit], false);
    decider.undecide(pending);
    this.options.log("error", "apply failed; batch dropped", { err: errorText(error) });
  }
}
