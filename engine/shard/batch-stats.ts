// A shard's batch figures (mailbox depth, messages and events per batch, commit time), counted in the shard
// thread into the buckets of the engine's Prometheus histograms (engine/metrics.ts) and shipped with its
// periodic stats notice: one message every few seconds instead of one per batch.
import { BucketCounter, type HistogramCounts } from "../../kernel/fast-histogram.js";

export const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024] as const;
export const EVENT_BUCKETS = [0, 1, 4, 16, 64, 256, 1024, 4096, 16384] as const;
/** Seconds. */
export const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const;

/** A shard's batches since its previous stats notice. */
export interface BatchStats {
  /** Most messages in the mailbox when a batch was taken (the batch included); 0 when none was taken. */
  mailboxDepth: number;
  /** Messages decided per batch (BATCH_BUCKETS). */
  messages: HistogramCounts;
  /** Events journaled per batch (EVENT_BUCKETS). */
  events: HistogramCounts;
  /** BEGIN…COMMIT in seconds of the batches that had something to journal, by outcome (COMMIT_BUCKETS). */
  commitOk: HistogramCounts;
  commitFailed: HistogramCounts;
}

export class BatchStatsCounter {
  private mailboxDepth = 0;
  private readonly messages = new BucketCounter(BATCH_BUCKETS);
  private readonly events = new BucketCounter(EVENT_BUCKETS);
  private readonly commitOk = new BucketCounter(COMMIT_BUCKETS);
  private readonly commitFailed = new BucketCounter(COMMIT_BUCKETS);

  /** One batch: `commitMs` null when it had nothing to journal (or never reached the journal). */
  observe(depth: number, messages: number, events: number, commitMs: number | null, ok: boolean): void {
    if (depth > this.mailboxDepth) this.mailboxDepth = depth;
    this.messages.observe(messages);
    this.events.observe(events);
    if (commitMs !== null) (ok ? this.commitOk : this.commitFailed).observe(commitMs / 1000);
  }

  /** The batches since the last call, then starts over. */
  take(): BatchStats {
    const depth = this.mailboxDepth;
    this.mailboxDepth = 0;
    return {
      mailboxDepth: depth,
      messages: this.messages.take(),
      events: this.events.take(),
      commitOk: this.commitOk.take(),
      commitFailed: this.commitFailed.take(),
    };
  }
}
