// Holds an engine's partition leases for its lifetime (docs/scale-out.md): waits until every owned partition is
// leased (retrying, never stealing a live lease), renews them, and says whether this engine may serve: not
// while no renewal succeeded within the lease's time to live (commands then fail with engine_unavailable), and
// never again once another owner took a partition (the epoch moved).
import { abortableSleep } from "../../kernel/abortable-sleep.js";
import { errorText } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import { readLeases, type Fence, type PartitionLeases } from "./leases.js";

export interface LeaseKeeperOptions {
  leases: PartitionLeases;
  partitions: readonly number[];
  ttlMs: number;
  renewMs: number;
  /** How often partitions another live owner holds are tried again while waiting (default `renewMs`). */
  pollMs?: number;
  log: Logger;
  /** Monotonic clock in ms (performance.now). */
  now: () => number;
  /** Called once when a partition was taken by another owner: this process must stop. */
  onLost: (partitions: number[]) => void;
  /** Partitions already leased to this owner, with their epochs (a standby took them whole). */
  taken?: ReadonlyMap<number, number>;
}

export interface HeldPartitions {
  /** What the shards' journal appends carry. */
  readonly fence: Fence;
  /** Whether a renewal succeeded within the lease's time to live and no lease was lost. */
  readonly serving: () => boolean;
  /** Stops renewing and releases the leases (call after the shards stopped writing). */
  release(): Promise<void>;
  /** Stops renewing without releasing (the leases then expire). */
  abandon(): void;
}

/**
 * Takes every partition's lease, retrying every `pollMs` (renewing what it already holds, so no more than
 * `renewMs` apart) and logging who holds the rest when that changes; `signal` gives up (the leases taken
 * expire). Resolves with the epochs and when they expire. A lease released by its owner is taken at the next try.
 */
async function acquireAll(
  options: LeaseKeeperOptions,
  signal: AbortSignal,
): Promise<{ epochs: Map<number, number>; validUntil: number }> {
  const { leases, partitions, ttlMs, renewMs, log, now } = options;
  const pollMs = Math.min(options.pollMs ?? renewMs, renewMs);
  const epochs = new Map<number, number>(options.taken);
  let heldBy = "";
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) throw new Error("stopped while waiting for partition leases");
    const sent = now();
    try {
      const renewed = await leases.renew(epochs);
      for (const partition of [...epochs.keys()]) if (!renewed.has(partition)) epochs.delete(partition);
      const missing = partitions.filter((p) => !epochs.has(p));
      for (const [partition, epoch] of await leases.acquire(missing)) epochs.set(partition, epoch);
      if (epochs.size === partitions.length) return { epochs, validUntil: sent + ttlMs };
      const held = await readLeases(
        leases.pool,
        partitions.filter((p) => !epochs.has(p)),
      );
      const owners = [...new Set(held.map((row) => row.owner))];
      if (owners.join() !== heldBy) {
        heldBy = owners.join();
        log.warn(
          { attempt, waitingFor: partitions.length - epochs.size, heldBy: owners },
          "partitions leased by another live engine; waiting until they are released or expire",
        );
      }
    } catch (error) {
      log.warn({ attempt, err: errorText(error) }, "acquiring partition leases failed; retrying");
    }
    await abortableSleep(pollMs, signal);
  }
}

/**
 * Resolves once every partition is leased to this owner (`acquireAll`), then renews the leases every `renewMs`
 * until they are released, abandoned or lost.
 */
export async function holdPartitions(options: LeaseKeeperOptions, signal: AbortSignal): Promise<HeldPartitions> {
  const { leases, partitions, ttlMs, renewMs, log, now } = options;
  const acquired = await acquireAll(options, signal);
  const epochs = acquired.epochs;
  let validUntil = acquired.validUntil;
  log.info(
    { owner: leases.owner, partitions: partitions.length, epochs: [...new Set(epochs.values())] },
    "partition leases held",
  );

  const fence: Fence = { owner: leases.owner, epochs: Object.fromEntries(epochs) };
  let lost = false;
  let stopped = false;
  let renewing: Promise<void> | undefined;
  const renew = async (): Promise<void> => {
    const sent = now();
    try {
      const renewed = await leases.renew(epochs);
      const gone = partitions.filter((p) => !renewed.has(p));
      if (gone.length > 0) {
        lost = true;
        clearInterval(timer);
        log.error({ owner: leases.owner, partitions: gone }, "partition leases taken by another owner");
        options.onLost(gone);
        return;
      }
      if (!serving()) log.info({ owner: leases.owner }, "partition leases renewed; serving again");
      validUntil = sent + ttlMs;
    } catch (error) {
      const level = now() >= validUntil ? "error" : "warn";
      log[level]({ err: errorText(error), expired: now() >= validUntil }, "renewing partition leases failed");
    }
  };
  const serving = (): boolean => !lost && !stopped && now() < validUntil;
  const timer = setInterval(() => {
    if (renewing !== undefined) return; // a slow renewal never piles up behind itself
    renewing = renew().finally(() => {
      renewing = undefined;
    });
  }, renewMs);

  return {
    fence,
    serving,
    async release() {
      stopped = true;
      clearInterval(timer);
      await renewing;
      if (lost) return;
      try {
        await leases.release(partitions);
      } catch (error) {
        log.warn({ err: errorText(error) }, "releasing partition leases failed; they expire on their own");
      }
    },
    abandon() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
