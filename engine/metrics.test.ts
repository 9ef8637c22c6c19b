import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { engineMetrics, expiredCounter, standbyMetrics } from "./metrics.js";
import { BatchStatsCounter, type BatchStats } from "./shard/batch-stats.js";

const noBatches = (): BatchStats => new BatchStatsCounter().take();

const stats = (
  shard: number,
  tallies: Record<string, number>,
  states: Record<string, number>,
  batches: BatchStats = noBatches(),
) => ({ kind: "stats", shard, tallies, batches, states, loopLagP99Ms: 2, loopLagMaxMs: 7 }) as const;

describe("engine metrics", () => {
  it("show which indexes a standby follows, the events it applied and when it last looked", async () => {
    const registry = new Registry();
    const standby = standbyMetrics(registry, 2);
    let text = await registry.metrics();
    expect(text).toContain('engine_standby_following{engine="0"} 0');
    expect(text).toContain('engine_standby_followed_events_total{engine="1"} 0');
    expect(text).toContain('engine_standby_last_look_timestamp_seconds{engine="1"} 0');
    standby.following(0, true);
    standby.following(1, true);
    const before = Date.now() / 1000;
    standby.stepped(1, 7);
    standby.stepped(1, 0);
    standby.following(0, false);
    text = await registry.metrics();
    expect(text).toContain('engine_standby_following{engine="0"} 0');
    expect(text).toContain('engine_standby_following{engine="1"} 1');
    expect(text).toContain('engine_standby_followed_events_total{engine="1"} 7');
    const look = /engine_standby_last_look_timestamp_seconds\{engine="1"\} ([\d.]+)/.exec(text);
    expect(Number(look?.[1])).toBeGreaterThanOrEqual(before);
  });

  it("count the calls answered expired, by method", async () => {
    const registry = new Registry();
    const expired = expiredCounter(registry);
    expired("PlaceOrder");
    expired("PlaceOrder");
    expired("ListOrders");
    const text = await registry.metrics();
    expect(text).toContain('engine_commands_expired_total{method="PlaceOrder"} 2');
    expect(text).toContain('engine_commands_expired_total{method="ListOrders"} 1');
  });

  it("turn the shards' tallies into labelled counters and ignore keys they do not know", async () => {
    const registry = new Registry();
    const metrics = engineMetrics(registry, 2);
    metrics.stats?.(stats(0, { "orders|LIMIT|rejected|exposure_cap": 2, "fills|MARKET|TAKER": 1, "new|x": 5 }, {}));
    metrics.stats?.(stats(1, { "orders|LIMIT|rejected|exposure_cap": 1, "terminations|drawdown_gate": 1 }, {}));
    const text = await registry.metrics();
    expect(text).toContain('engine_orders_total{kind="LIMIT",outcome="rejected",rule="exposure_cap"} 3');
    expect(text).toContain('engine_fills_total{kind="MARKET",liquidity="TAKER"} 1');
    expect(text).toContain('engine_account_terminations_total{rule="drawdown_gate"} 1');
    expect(text).toContain('engine_account_terminations_total{rule="daily_loss_limit"} 0');
    expect(text).not.toContain("new");
    expect(text).toContain('engine_shard_event_loop_lag_max_seconds{shard="1"} 0.007');
  });

  it("sum each shard's latest accounts per state, every state listed", async () => {
    const registry = new Registry();
    const metrics = engineMetrics(registry, 2);
    metrics.stats?.(stats(0, {}, { ACTIVE: 5 }));
    metrics.stats?.(stats(1, {}, { ACTIVE: 2, TERMINATED: 1 }));
    metrics.stats?.(stats(0, {}, { ACTIVE: 4, PASSED: 1 }));
    const text = await registry.metrics();
    expect(text).toContain('engine_accounts{state="ACTIVE"} 6');
    expect(text).toContain('engine_accounts{state="PASSED"} 1');
    expect(text).toContain('engine_accounts{state="TERMINATED"} 1');
  });

  it("report the deepest mailbox since the last scrape, then 0 for a shard that took no batch", async () => {
    const registry = new Registry();
    const metrics = engineMetrics(registry, 2);
    const batches = new BatchStatsCounter();
    for (const depth of [3, 40]) batches.observe(depth, 1, 0, null, true);
    metrics.stats?.(stats(1, {}, {}, batches.take()));
    batches.observe(7, 1, 0, null, true);
    metrics.stats?.(stats(1, {}, {}, batches.take()));
    expect(await registry.metrics()).toContain('engine_shard_mailbox_depth{shard="1"} 40');
    // No notice since the last scrape (scraped within one stats interval): the same figure again.
    expect(await registry.metrics()).toContain('engine_shard_mailbox_depth{shard="1"} 40');
    metrics.stats?.(stats(1, {}, {}, batches.take()));
    expect(await registry.metrics()).toContain('engine_shard_mailbox_depth{shard="1"} 0');
  });

  it("label request latency by shard and kind, and commits by outcome", async () => {
    const registry = new Registry();
    const metrics = engineMetrics(registry, 2);
    metrics.requestLatency?.(0, "command", 0.002);
    metrics.requestLatency?.(0, "start", 1);
    const batches = new BatchStatsCounter();
    batches.observe(1, 1, 1, 3, true);
    batches.observe(1, 1, 1, 9, false);
    metrics.stats?.(stats(0, {}, {}, batches.take()));
    const text = await registry.metrics();
    expect(text).toContain('engine_shard_request_duration_seconds_count{shard="0",kind="command"} 1');
    expect(text).not.toContain('kind="start"');
    expect(text).toContain('engine_journal_commit_duration_seconds_count{outcome="ok"} 1');
    expect(text).toContain('engine_journal_commit_duration_seconds_count{outcome="failed"} 1');
  });

  it("merge the batch figures of every shard's notices into the journal histograms", async () => {
    const registry = new Registry();
    const metrics = engineMetrics(registry, 2);
    const zero = new BatchStatsCounter();
    const one = new BatchStatsCounter();
    zero.observe(5, 3, 0, null, true);
    zero.observe(2, 2, 4, 0.7, true);
    one.observe(1, 1, 1, 30, true);
    metrics.stats?.(stats(0, {}, {}, zero.take()));
    metrics.stats?.(stats(1, {}, {}, one.take()));
    one.observe(700, 700, 20_000, 3_000, false);
    metrics.stats?.(stats(1, {}, {}, one.take()));
    const text = await registry.metrics();
    expect(text).toContain('engine_journal_batch_messages_bucket{le="2"} 2');
    expect(text).toContain('engine_journal_batch_messages_bucket{le="4"} 3');
    expect(text).toContain('engine_journal_batch_messages_bucket{le="+Inf"} 4');
    expect(text).toContain("engine_journal_batch_messages_sum 706");
    expect(text).toContain('engine_journal_batch_events_bucket{le="0"} 1');
    expect(text).toContain('engine_journal_batch_events_bucket{le="16384"} 3');
    expect(text).toContain("engine_journal_batch_events_count 4");
    expect(text).toContain('engine_journal_commit_duration_seconds_bucket{le="0.001",outcome="ok"} 1');
    expect(text).toContain('engine_journal_commit_duration_seconds_bucket{le="0.05",outcome="ok"} 2');
    expect(text).toContain('engine_journal_commit_duration_seconds_count{outcome="ok"} 2');
    expect(text).toContain('engine_journal_commit_duration_seconds_bucket{le="2.5",outcome="failed"} 0');
    expect(text).toContain('engine_journal_commit_duration_seconds_count{outcome="failed"} 1');
    expect(text).toContain('engine_shard_mailbox_depth{shard="0"} 5');
    expect(text).toContain('engine_shard_mailbox_depth{shard="1"} 700');
  });
});
