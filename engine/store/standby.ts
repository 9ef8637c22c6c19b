// A standby engine's wait for a dead engine (docs/scale-out.md, "Standbys"): every ENGINE_LEASE_POLL_MS it looks
// for an index k in 0..ENGINE_COUNT-1 whose partitions were all leased before and are all free or expired now,
// and takes them in one statement (PartitionLeases.acquireWhole): all of index k or nothing, so a standby never
// holds part of an index, nor partitions of two indices, and two standbys racing for one index cannot split it.
// From then on it is engine k: the lease keeper (engine/store/lease-keeper.ts) holds and renews what it took.
import { abortableSleep } from "../../kernel/abortable-sleep.js";
import { errorText } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import { partitionsOfEngine } from "../../kernel/partition.js";
import type { PartitionLeases } from "./leases.js";

export interface StandbyOptions {
  /** The standby's leases (its owner id names it a standby). */
  leases: PartitionLeases;
  /** ENGINE_COUNT: the indices it may take are 0..engines-1. */
  engines: number;
  pollMs: number;
  log: Logger;
  /** Monotonic clock in ms (performance.now). */
  now: () => number;
}

/** The index a standby took, with the epochs of its partitions. */
export interface TakenIndex {
  index: number;
  partitions: number[];
  epochs: Map<number, number>;
  /** How long the standby waited, from its first look to the take (ms). */
  waitedMs: number;
  /** How long before the take the last of the old owner's leases lapsed (ms, database clock). */
  lapsedMs: number;
}

/**
 * Looks at every index in turn, every `pollMs`, until one can be taken whole; resolves with it. `signal` gives
 * up (rejects). A failed look (the database down) is logged and tried again at the next poll.
 */
export async function takeDeadIndex(options: StandbyOptions, signal: AbortSignal): Promise<TakenIndex> {
  const { leases, engines, pollMs, log, now } = options;
  const started = now();
  log.info({ owner: leases.owner, engines }, "standby waiting for an engine whose partition leases lapse");
  let failing = false;
  for (;;) {
    if (signal.aborted) throw new Error("stopped while waiting as a standby");
    try {
      for (let index = 0; index < engines; index++) {
        const partitions = partitionsOfEngine(index, engines);
        const { epochs, lapsedMs } = await leases.acquireWhole(partitions);
        if (epochs.size === partitions.length) {
          return { index, partitions, epochs, waitedMs: now() - started, lapsedMs };
        }
      }
      failing = false;
    } catch (error) {
      // Logged once per outage, not at every poll.
      if (!failing) log.warn({ err: errorText(error) }, "standby: looking for lapsed partition leases failed");
      failing = true;
    }
    await abortableSleep(pollMs, signal);
  }
}
