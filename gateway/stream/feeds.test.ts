// The gateway's shared account feed (docs/streaming.md) on fake engine targets: refused opens reject the join, a
// stream that never starts is refused after READY_TIMEOUT_MS, a broken stream reopens from the last sequence
// passed on (nothing repeated), on each target of the account's engine in turn (a hand-over: the successor
// serves), a pause is bounded by RESUME_LIMIT_MS, and the last leave cancels it.
import { EventEmitter } from "node:events";
import { Metadata, status } from "@grpc/grpc-js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ERROR_METADATA_KEY } from "../../kernel/errors.js";
import { createLogger } from "../../kernel/log.js";
import type { WatchAccountRequest } from "../../proto/gen/engine/v1/WatchAccountRequest.js";
import type { WebhookEvent__Output } from "../../proto/gen/engine/v1/WebhookEvent.js";
import { AccountFeeds, READY_TIMEOUT_MS, RESUME_LIMIT_MS, type EngineStreams } from "./feeds.js";

const A = "0a0a0a0a-0000-4000-8000-000000000001";

class FakeCall extends EventEmitter {
  cancelled = false;
  cancel(): void {
    this.cancelled = true;
  }
}

/** The account's engine with `targets` targets, `first` of them serving it last. */
function engine(targets = 1, first = 0) {
  const calls: { request: WatchAccountRequest; target: number; call: FakeCall }[] = [];
  const streams = {
    accountTargets: () => ({ count: targets, first }),
    watchAccount: (request: WatchAccountRequest, target: number) => {
      const call = new FakeCall();
      calls.push({ request, target: target % targets, call });
      return call;
    },
    watchTickers: () => new FakeCall(),
  } as unknown as EngineStreams;
  return { calls, feeds: new AccountFeeds(streams, createLogger("test", "silent")) };
}

const event = (sequence: number): WebhookEvent__Output => ({
  id: `e${sequence}`,
  type: "order.ack",
  created_at: "2026-11-27T00:00:00.000Z",
  account_id: A,
  sequence,
  data_json: "{}",
});

const registryError = (code: string, grpcCode: number) => {
  const metadata = new Metadata();
  metadata.set(ERROR_METADATA_KEY, Buffer.from(JSON.stringify({ code, fields: {} })));
  return Object.assign(new Error(code), { code: grpcCode, details: code, metadata });
};

describe("AccountFeeds", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("rejects the join with the engine's error (another user's account) and forgets the feed", async () => {
    const { calls, feeds } = engine();
    const joined = feeds.join(
      "u2",
      A,
      () => undefined,
      () => undefined,
    );
    calls[0]?.call.emit("error", registryError("not_found", status.NOT_FOUND));
    await expect(joined).rejects.toMatchObject({ code: "not_found" });
    expect(feeds.size).toBe(0);
  });

  it("refuses the join engine_unavailable when the engine stream does not start in time", async () => {
    vi.useFakeTimers();
    const { calls, feeds } = engine();
    const joined = feeds.join(
      "u1",
      A,
      () => undefined,
      () => undefined,
    );
    const refused = expect(joined).rejects.toMatchObject({ code: "engine_unavailable" });
    vi.advanceTimersByTime(READY_TIMEOUT_MS);
    await refused;
    expect(calls[0]?.call.cancelled).toBe(true);
    expect(feeds.size).toBe(0);
  });

  it("shares one engine stream, reopens a broken one from the last sequence, and cancels it on the last leave", async () => {
    vi.useFakeTimers();
    const { calls, feeds } = engine();
    const a: number[] = [];
    const b: number[] = [];
    const first = feeds.join(
      "u1",
      A,
      (e) => a.push(e.sequence),
      () => undefined,
    );
    calls[0]?.call.emit("data", { event: null, after: 3 });
    const joinedA = await first;
    const joinedB = await feeds.join(
      "u1",
      A,
      (e) => b.push(e.sequence),
      () => undefined,
    );
    expect(calls).toHaveLength(1);
    expect(joinedA.last).toBe(3);
    calls[0]?.call.emit("data", { event: event(4), after: 0 });
    calls[0]?.call.emit("error", registryError("engine_unavailable", status.UNAVAILABLE));
    vi.advanceTimersByTime(300);
    expect(calls[1]?.request).toMatchObject({ user_id: "u1", account_id: A, after: 4 });
    calls[1]?.call.emit("data", { event: null, after: 4 });
    calls[1]?.call.emit("data", { event: event(4), after: 0 });
    calls[1]?.call.emit("data", { event: event(5), after: 0 });
    expect(a).toEqual([4, 5]);
    expect(b).toEqual([4, 5]);
    joinedA.leave();
    expect(calls[1]?.call.cancelled).toBe(false);
    joinedB.leave();
    expect(calls[1]?.call.cancelled).toBe(true);
    expect(feeds.size).toBe(0);
  });
});

/** A stream that ends as a stopping engine ends it, or as a connection that is gone. */
const stopping = () => registryError("engine_unavailable", status.UNAVAILABLE);
const unreachable = () => Object.assign(new Error("No connection established"), { code: status.UNAVAILABLE });

describe("AccountFeeds across a hand-over or take-over (several targets of one engine)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A feed serving after 3 on target `first` of 2, with one listener; its events and failures. */
  async function serving(first = 0) {
    const { calls, feeds } = engine(2, first);
    const got: number[] = [];
    const failures: string[] = [];
    const joining = feeds.join(
      "u1",
      A,
      (e) => got.push(e.sequence),
      (error) => failures.push(error.code),
    );
    calls[0]?.call.emit("data", { event: null, after: 3 });
    const joined = await joining;
    return { calls, feeds, got, failures, joined };
  }

  it("opens on the target that served the engine last", async () => {
    const { calls } = await serving(1);
    expect(calls[0]?.target).toBe(1);
    expect(calls[0]?.request).not.toHaveProperty("after");
  });

  it("reopens on the next target after the last sequence passed on: every event once, in order", async () => {
    vi.useFakeTimers();
    const { calls, got, failures } = await serving();
    calls[0]?.call.emit("data", { event: event(4), after: 0 });
    calls[0]?.call.emit("data", { event: event(5), after: 0 });
    calls[0]?.call.emit("error", stopping()); // SIGTERM: the engine ends its streams
    vi.advanceTimersByTime(250);
    expect(calls[1]).toMatchObject({ target: 1, request: { after: 5 } });
    calls[1]?.call.emit("error", unreachable()); // the successor does not listen yet
    vi.advanceTimersByTime(250);
    expect(calls[2]).toMatchObject({ target: 0, request: { after: 5 } });
    calls[2]?.call.emit("error", unreachable()); // the stopped engine is gone
    vi.advanceTimersByTime(500);
    expect(calls[3]).toMatchObject({ target: 1, request: { after: 5 } });
    calls[3]?.call.emit("data", { event: null, after: 5 });
    calls[3]?.call.emit("data", { event: event(5), after: 0 });
    calls[3]?.call.emit("data", { event: event(6), after: 0 });
    calls[3]?.call.emit("data", { event: event(7), after: 0 });
    // A late event of a stream left behind is not passed on.
    calls[0]?.call.emit("data", { event: event(8), after: 0 });
    expect(got).toEqual([4, 5, 6, 7]);
    expect(failures).toEqual([]);
    // Resumed: a later break starts the backoff over, on the next target.
    calls[3]?.call.emit("error", stopping());
    vi.advanceTimersByTime(250);
    expect(calls[4]).toMatchObject({ target: 0, request: { after: 7 } });
  });

  it("reopens a stream the engine ended cleanly (status OK) as a broken one", async () => {
    vi.useFakeTimers();
    const { calls, got } = await serving();
    calls[0]?.call.emit("data", { event: event(4), after: 0 });
    calls[0]?.call.emit("status", { code: status.OK, details: "", metadata: new Metadata() });
    vi.advanceTimersByTime(250);
    expect(calls[1]).toMatchObject({ target: 1, request: { after: 4 } });
    calls[1]?.call.emit("data", { event: null, after: 4 });
    calls[1]?.call.emit("data", { event: event(5), after: 0 });
    expect(got).toEqual([4, 5]);
  });

  it("moves on to the next target when a reopened stream does not start in time", async () => {
    vi.useFakeTimers();
    const { calls } = await serving();
    calls[0]?.call.emit("error", stopping());
    vi.advanceTimersByTime(250);
    expect(calls[1]?.target).toBe(1);
    vi.advanceTimersByTime(READY_TIMEOUT_MS);
    expect(calls[1]?.call.cancelled).toBe(true);
    vi.advanceTimersByTime(250);
    expect(calls[2]).toMatchObject({ target: 0, request: { after: 3 } });
  });

  it("pauses at most RESUME_LIMIT_MS: then every subscriber is told engine_unavailable and the feed ends", async () => {
    vi.useFakeTimers();
    const { calls, feeds, failures } = await serving();
    calls[0]?.call.emit("error", stopping());
    for (let waited = 0; waited < RESUME_LIMIT_MS; waited += 250) {
      calls.at(-1)?.call.emit("error", unreachable());
      vi.advanceTimersByTime(250);
    }
    expect(calls.length).toBeGreaterThan(2);
    expect(failures).toEqual(["engine_unavailable"]);
    expect(feeds.size).toBe(0);
    const opened = calls.length;
    vi.advanceTimersByTime(RESUME_LIMIT_MS);
    expect(calls).toHaveLength(opened);
  });

  it("a join during a hand-over tries each target once: the successor serves it", async () => {
    const { calls, feeds } = engine(2);
    const joining = feeds.join(
      "u1",
      A,
      () => undefined,
      () => undefined,
    );
    calls[0]?.call.emit("error", registryError("engine_not_serving", status.UNAVAILABLE));
    expect(calls[1]?.target).toBe(1);
    calls[1]?.call.emit("data", { event: null, after: 9 });
    await expect(joining).resolves.toMatchObject({ last: 9 });
    const refused = engine(2);
    const none = refused.feeds.join(
      "u1",
      A,
      () => undefined,
      () => undefined,
    );
    refused.calls[0]?.call.emit("error", unreachable());
    refused.calls[1]?.call.emit("error", unreachable());
    await expect(none).rejects.toMatchObject({ code: "engine_unavailable" });
    expect(refused.calls).toHaveLength(2);
  });
});
