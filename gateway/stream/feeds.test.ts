// The gateway's shared account feed (docs/streaming.md) on a fake engine: refused opens reject the join, a
// stream that never starts is refused after READY_TIMEOUT_MS, a broken stream reopens from the last sequence
// passed on (nothing repeated), and the last leave cancels it.
import { EventEmitter } from "node:events";
import { Metadata, status } from "@grpc/grpc-js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ERROR_METADATA_KEY } from "../../kernel/errors.js";
import { createLogger } from "../../kernel/log.js";
import type { WatchAccountRequest } from "../../proto/gen/engine/v1/WatchAccountRequest.js";
import type { WebhookEvent__Output } from "../../proto/gen/engine/v1/WebhookEvent.js";
import { AccountFeeds, READY_TIMEOUT_MS, type EngineStreams } from "./feeds.js";

const A = "0a0a0a0a-0000-4000-8000-000000000001";

class FakeCall extends EventEmitter {
  cancelled = false;
  cancel(): void {
    this.cancelled = true;
  }
}

function engine() {
  const calls: { request: WatchAccountRequest; call: FakeCall }[] = [];
  const streams = {
    watchAccount: (request: WatchAccountRequest) => {
      const call = new FakeCall();
      calls.push({ request, call });
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
