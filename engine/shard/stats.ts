// A shard's figures for its periodic stats notice: the tallies of committed events (`core.tally`, counted per
// batch and added once the batch committed), its batch figures, and the accounts in memory per state.
import type { ActorCore, CoreTypes } from "./core-contract.js";
import { BatchStatsCounter, type BatchStats } from "./batch-stats.js";
import type { Entry } from "./memory.js";

/** What `take` reports (the `stats` notice without the thread's event-loop figures). */
export interface ShardStats {
  tallies: Record<string, number>;
  states: Record<string, number>;
  batches: BatchStats;
}

export class ShardStatsCounter<T extends CoreTypes> {
  /** Committed tallies since the last `take`; undefined when not counting. */
  private readonly tallies: Map<string, number> | undefined;
  /** Batch figures since the last `take` (a few additions per batch: always counted). */
  readonly batches = new BatchStatsCounter();

  /** `tally`: count committed events through the core's `tally` (when it has one). */
  constructor(
    private readonly core: ActorCore<T>,
    tally: boolean,
  ) {
    this.tallies = tally && core.tally !== undefined ? new Map() : undefined;
  }

  /** A batch's own tallies, to be added once it committed; undefined when not counting. */
  batchTallies(): Map<string, number> | undefined {
    return this.tallies === undefined ? undefined : new Map();
  }

  /** Adds a committed batch's tallies. */
  committed(batch: Map<string, number> | undefined): void {
    if (batch === undefined || this.tallies === undefined) return;
    for (const [key, count] of batch) this.tallies.set(key, (this.tallies.get(key) ?? 0) + count);
  }

  /**
   * The tallies and batch figures since the last call (then cleared), and the accounts in memory per state
   * now (an account evicted by a failed commit is counted again once the next batch reloaded it).
   */
  take(accounts: Iterable<Entry<T["state"]>>): ShardStats {
    const tallies: Record<string, number> = {};
    if (this.tallies !== undefined) {
      for (const [key, count] of this.tallies) tallies[key] = count;
      this.tallies.clear();
    }
    const states: Record<string, number> = {};
    const stateOf = this.core.stateOf?.bind(this.core);
    if (stateOf !== undefined) {
      for (const entry of accounts) {
        const label = stateOf(entry.state);
        states[label] = (states[label] ?? 0) + 1;
      }
    }
    return { tallies, states, batches: this.batches.take() };
  }
}
