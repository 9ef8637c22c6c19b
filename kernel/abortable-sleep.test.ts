// abortableSleep: ends after its time, or at once on abort, and never rejects.
import { afterEach, describe, expect, it, vi } from "vitest";
import { abortableSleep } from "./abortable-sleep.js";

describe("abortableSleep", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("resolves after its time, not before", async () => {
    vi.useFakeTimers();
    let done = false;
    const slept = abortableSleep(1_000, new AbortController().signal).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await slept;
    expect(done).toBe(true);
  });

  it("resolves at once when the signal aborts, leaving no timer behind", async () => {
    vi.useFakeTimers();
    const stop = new AbortController();
    const slept = abortableSleep(60_000, stop.signal);
    stop.abort();
    await expect(slept).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
