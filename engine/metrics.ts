// The engine's Prometheus metrics: the shard runtime's observers (mailbox depth, request latency, journal
// batches and commits, each shard thread's event-loop delay) and the business counters the shards tally from
// committed events (orders by kind/outcome/rule, fills, terminations, accounts per state; engine/telemetry.ts).
// The shard threads count their batches into the histograms' buckets themselves (engine/shard/batch-stats.ts)
// and send them, with the tallies, every few seconds in one notice per shard, merged here into FastHistograms:
// the journal and mailbox series trail the shards by up to one stats interval (ENGINE_STATS_INTERVAL_MS).
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { FastHistogram, FastHistogramVec } from "../kernel/fast-histogram.js";
import { AccountStatus } from "./basics/account-state.js";
import { BATCH_BUCKETS, COMMIT_BUCKETS, EVENT_BUCKETS } from "./shard/batch-stats.js";
import type { ShardMetrics } from "./shard/runtime.js";
import { parseTallyKey } from "./telemetry.js";

export const REQUEST_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5] as const;

type StatsNotice = Parameters<NonNullable<ShardMetrics["stats"]>>[0];

/** Registers the engine's metrics for `shards` shard threads and returns the runtime's observers. */
export function engineMetrics(registry: Registry, shards: number): ShardMetrics {
  const registers = [registry];
  const shardIds = Array.from({ length: shards }, (_, shard) => String(shard));
  const shardSeries = shardMetrics(registers, shardIds);
  const tallied = businessMetrics(registers, shardIds);
  return {
    requestLatency: shardSeries.requestLatency,
    stats(notice) {
      shardSeries.stats(notice);
      tallied(notice);
    },
  };
}

/** The shard runtime's own series: mailbox depth, request latency, event-loop delay, journal batches. */
function shardMetrics(
  registers: Registry[],
  shardIds: readonly string[],
): Required<Pick<ShardMetrics, "requestLatency" | "stats">> {
  const mailbox = mailboxDepth(registers, shardIds.length);
  const requests = new FastHistogramVec<"shard" | "kind">({
    name: "engine_shard_request_duration_seconds",
    help: "Time from handing a command, query or market update to a shard to its answer (mailbox wait and commit included).",
    labelNames: ["shard", "kind"],
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const requestChildren = shardIds.map((shard) => ({
    command: requests.child({ shard, kind: "command" }),
    query: requests.child({ shard, kind: "query" }),
    market: requests.child({ shard, kind: "market" }),
  }));
  const lagP99 = new Gauge({
    name: "engine_shard_event_loop_lag_p99_seconds",
    help: "99th percentile of a shard thread's event-loop delay over its last stats interval.",
    labelNames: ["shard"],
    registers,
  });
  const lagMax = new Gauge({
    name: "engine_shard_event_loop_lag_max_seconds",
    help: "Longest event-loop delay of a shard thread over its last stats interval.",
    labelNames: ["shard"],
    registers,
  });
  const journal = journalMetrics(registers);
  return {
    requestLatency(shard, kind, seconds) {
      if (kind !== "command" && kind !== "query" && kind !== "market") return;
      requestChildren[shard]?.[kind].observe(seconds);
    },
    stats(notice) {
      const shard = String(notice.shard);
      mailbox(notice.shard, notice.batches.mailboxDepth);
      journal(notice.batches);
      lagP99.set({ shard }, notice.loopLagP99Ms / 1000);
      lagMax.set({ shard }, notice.loopLagMaxMs / 1000);
    },
  };
}

/**
 * The deepest mailbox in each shard's stats notices since the last scrape (0 when it took no batch: it was
 * empty); when none came since (scrapes more often than the stats interval), the previous scrape's again.
 * Returns how a notice's depth is reported.
 */
function mailboxDepth(registers: Registry[], shards: number): (shard: number, depth: number) => void {
  const deepest = new Float64Array(shards);
  const reported = new Uint8Array(shards);
  new Gauge({
    name: "engine_shard_mailbox_depth",
    help: "Most messages waiting in a shard's mailbox when it took a batch, since the last scrape.",
    labelNames: ["shard"],
    registers,
    collect() {
      deepest.forEach((depth, shard) => {
        this.set({ shard: String(shard) }, depth);
      });
      reported.fill(0);
    },
  });
  return (shard, depth) => {
    if (reported[shard] === 0 || depth > (deepest[shard] ?? 0)) deepest[shard] = depth;
    reported[shard] = 1;
  };
}

/** Journal batches and commits, merged from the buckets the shard threads counted. */
function journalMetrics(registers: Registry[]): (batches: StatsNotice["batches"]) => void {
  const batchMessages = new FastHistogram({
    name: "engine_journal_batch_messages",
    help: "Messages decided together in one shard batch (one journal transaction).",
    buckets: BATCH_BUCKETS,
    registers,
  });
  const batchEvents = new FastHistogram({
    name: "engine_journal_batch_events",
    help: "Events journaled by one shard batch.",
    buckets: EVENT_BUCKETS,
    registers,
  });
  const commits = new FastHistogramVec<"outcome">({
    name: "engine_journal_commit_duration_seconds",
    help: "Time to append one batch to the journal (one statement), by outcome (ok, failed).",
    labelNames: ["outcome"],
    buckets: COMMIT_BUCKETS,
    registers,
  });
  const committed = commits.child({ outcome: "ok" });
  const failed = commits.child({ outcome: "failed" });
  return (batches) => {
    batchMessages.merge(batches.messages);
    batchEvents.merge(batches.events);
    committed.merge(batches.commitOk);
    failed.merge(batches.commitFailed);
  };
}

/** The business series, from the tallies and account states in each shard's stats notices. */
function businessMetrics(registers: Registry[], shardIds: readonly string[]): (notice: StatsNotice) => void {
  const orders = new Counter({
    name: "engine_orders_total",
    help: "Orders by kind and outcome (accepted, rejected, filled, canceled, expired); rejections by the first violated rule.",
    labelNames: ["kind", "outcome", "rule"],
    registers,
  });
  const fills = new Counter({
    name: "engine_fills_total",
    help: "Fills by order kind and liquidity.",
    labelNames: ["kind", "liquidity"],
    registers,
  });
  const terminations = new Counter({
    name: "engine_account_terminations_total",
    help: "Accounts terminated by a hard rule, by rule.",
    labelNames: ["rule"],
    registers,
  });
  for (const rule of ["daily_loss_limit", "drawdown_gate"]) terminations.inc({ rule }, 0);
  const states = accountStates(registers, shardIds);
  return (notice) => {
    states(notice.shard, notice.states);
    for (const [key, count] of Object.entries(notice.tallies)) {
      const tally = parseTallyKey(key);
      if (tally === undefined) continue;
      if (tally.metric === "orders") {
        orders.inc({ kind: tally.kind, outcome: tally.outcome, rule: tally.rule }, count);
      } else if (tally.metric === "fills") {
        fills.inc({ kind: tally.kind, liquidity: tally.liquidity }, count);
      } else {
        terminations.inc({ rule: tally.rule }, count);
      }
    }
  };
}

/** Accounts per state: each shard's latest count per state, summed at scrape. */
function accountStates(
  registers: Registry[],
  shardIds: readonly string[],
): (shard: number, states: Record<string, number>) => void {
  const statesByShard: Record<string, number>[] = shardIds.map(() => ({}));
  new Gauge({
    name: "engine_accounts",
    help: "Accounts held by this engine's shards, by state.",
    labelNames: ["state"],
    registers,
    collect() {
      const totals: Record<string, number> = {};
      for (const state of Object.values(AccountStatus)) totals[state] = 0;
      for (const states of statesByShard) {
        for (const [state, count] of Object.entries(states)) totals[state] = (totals[state] ?? 0) + count;
      }
      this.reset();
      for (const [state, count] of Object.entries(totals)) this.set({ state }, count);
    },
  });
  return (shard, states) => {
    statesByShard[shard] = states;
  };
}

/**
 * `engine_commands_expired_total{method}`: calls answered DEADLINE_EXCEEDED without being decided, because the
 * caller's deadline passed while they waited (docs/engine.md, "Deadlines").
 */
export function expiredCounter(registry: Registry): (method: string) => void {
  const counter = new Counter({
    name: "engine_commands_expired_total",
    help: "Commands and reads answered DEADLINE_EXCEEDED without being decided: their deadline passed while queued.",
    labelNames: ["method"],
    registers: [registry],
  });
  return (method) => {
    counter.inc({ method });
  };
}

/**
 * `engine_handovers_total` and `engine_handover_seconds`: planned hand-overs on a stop (docs/scale-out.md,
 * "Hand-over"), each from the first refused call to the released leases, and `engine_handed_over_partitions_total`
 * the partitions they released.
 */
export function handoverMetrics(registry: Registry): (partitions: number, seconds: number) => void {
  const registers = [registry];
  const handovers = new Counter({
    name: "engine_handovers_total",
    help: "Stops that handed this engine's partitions over: shards drained and committed, leases released.",
    registers,
  });
  const partitionsReleased = new Counter({
    name: "engine_handed_over_partitions_total",
    help: "Partition leases released by planned hand-overs, for a successor to take at once.",
    registers,
  });
  const seconds = new Histogram({
    name: "engine_handover_seconds",
    help: "Seconds from the start of a hand-over (new calls refused) to its leases released.",
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  return (partitions, took) => {
    handovers.inc();
    partitionsReleased.inc(partitions);
    seconds.observe(took);
  };
}

/** What a standby's take-over of a dead engine's index took (docs/scale-out.md, "Standbys"). */
export interface Takeover {
  /** The index taken. */
  index: number;
  /** From the last of the old owner's leases lapsing (database clock) to this engine listening. */
  seconds: number;
  /** From taking the leases to listening: the rebuild from the journal and the start of the parts. */
  rebuildSeconds: number;
  /** How long the standby waited before the take. */
  waitedSeconds: number;
}

/**
 * `engine_takeovers_total{engine}` (a standby took engine k's index), `engine_takeover_seconds` (old leases lapsed
 * → serving), `engine_takeover_rebuild_seconds` (leases taken → serving) and `engine_standby_wait_seconds` (how
 * long the standby waited): the gap a dead engine's accounts saw is ENGINE_LEASE_TTL_MS less the time since its
 * last renewal, plus `engine_takeover_seconds`.
 */
export function takeoverMetrics(registry: Registry, engines: number): (takeover: Takeover) => void {
  const registers = [registry];
  const takeovers = new Counter({
    name: "engine_takeovers_total",
    help: "Take-overs by this standby of a dead engine's index (label engine: the index taken).",
    labelNames: ["engine"],
    registers,
  });
  // Every index starts at 0, so a take-over's first increase shows (and the series exist before one).
  for (let index = 0; index < engines; index++) takeovers.inc({ engine: String(index) }, 0);
  const seconds = new Gauge({
    name: "engine_takeover_seconds",
    help: "Seconds from the dead engine's leases lapsing to this standby serving its index.",
    registers,
  });
  const rebuild = new Gauge({
    name: "engine_takeover_rebuild_seconds",
    help: "Seconds from this standby taking the leases to serving (its catch-up with the journal and the engine's start).",
    registers,
  });
  const waited = new Gauge({
    name: "engine_standby_wait_seconds",
    help: "Seconds this standby waited before it took a dead engine's index.",
    registers,
  });
  return (takeover) => {
    takeovers.inc({ engine: String(takeover.index) });
    seconds.set(takeover.seconds);
    rebuild.set(takeover.rebuildSeconds);
    waited.set(takeover.waitedSeconds);
  };
}

/** A standby's following (docs/scale-out.md, "Standbys"), for each index it follows. */
export interface StandbyFollowing {
  /** The index's shards follow (true) or no longer do (took it, another one, or stopped). */
  following(index: number, on: boolean): void;
  /** A step through the journal of the index ended well: the events it applied. */
  stepped(index: number, events: number): void;
}

/**
 * `engine_standby_following{engine}` (1 while this standby's shards follow index k's journal),
 * `engine_standby_followed_events_total{engine}` (events they applied) and
 * `engine_standby_last_look_timestamp_seconds{engine}` (when their last step ended well): a standby whose last
 * look grows old is not hot, and would rebuild more at a take-over.
 */
export function standbyMetrics(registry: Registry, engines: number): StandbyFollowing {
  const registers = [registry];
  const labelNames = ["engine"] as const;
  const following = new Gauge({
    name: "engine_standby_following",
    help: "1 while this standby's shards follow the journal of the engine index (label engine), else 0.",
    labelNames,
    registers,
  });
  const events = new Counter({
    name: "engine_standby_followed_events_total",
    help: "Journal events this standby's shards applied while following the engine index (label engine).",
    labelNames,
    registers,
  });
  const lastLook = new Gauge({
    name: "engine_standby_last_look_timestamp_seconds",
    help: "Unix time this standby's shards last read the journal of the engine index (label engine) without failing; 0 before.",
    labelNames,
    registers,
  });
  // Every index starts at 0 (never looked), so the series exist on every engine, owners included.
  for (let index = 0; index < engines; index++) {
    following.set({ engine: String(index) }, 0);
    events.inc({ engine: String(index) }, 0);
    lastLook.set({ engine: String(index) }, 0);
  }
  return {
    following(index, on) {
      following.set({ engine: String(index) }, on ? 1 : 0);
    },
    stepped(index, applied) {
      events.inc({ engine: String(index) }, applied);
      lastLook.set({ engine: String(index) }, Date.now() / 1000);
    },
  };
}
