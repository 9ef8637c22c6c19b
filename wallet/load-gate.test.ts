// The cap on validation reads of unknown keys: at most `concurrency` at once, a bounded queue served in order,
// and refusals (`wallet_unavailable`) for what does not fit or waits too long.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ServiceError } from "../kernel/errors.js";
import { LoadGate } from "./load-gate.js";

function deferred(): { promise: Promise<string>; resolve: (value: string) => void } {
  let resolve!: (value: string) => void;
  const promise = new Promise<string>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("LoadGate", () => {
  it("runs at most `concurrency` reads at once and starts the waiting ones in order as reads end", async () => {
    const gate = new LoadGate({ concurrency: 2, queue: 10, waitMs: 60_000 });
    const reads = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const results = reads.map((read, i) =>
      gate.run(() => {
        started.push(i);
        return read.promise;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(gate.running).toBe(2);
    expect(gate.queued).toBe(2);
    reads[1]?.resolve("b");
    await vi.waitFor(() => {
      expect(started).toEqual([0, 1, 2]);
    });
    expect(gate.running).toBe(2);
    reads[0]?.resolve("a");
    reads[2]?.resolve("c");
    await vi.waitFor(() => {
      expect(started).toEqual([0, 1, 2, 3]);
    });
    reads[3]?.resolve("d");
    expect(await Promise.all(results)).toEqual(["a", "b", "c", "d"]);
    expect(gate.running).toBe(0);
    expect(gate.queued).toBe(0);
  });

  it("refuses at once when the queue is full, and a failed read frees its turn", async () => {
    const gate = new LoadGate({ concurrency: 1, queue: 1, waitMs: 60_000 });
    const first = deferred();
    const running = gate.run(() => first.promise);
    const waiting = gate.run(() => Promise.reject(new Error("read failed")));
    await expect(gate.run(() => Promise.resolve("x"))).rejects.toEqual(new ServiceError("wallet_unavailable"));
    first.resolve("a");
    expect(await running).toBe("a");
    await expect(waiting).rejects.toThrow("read failed");
    expect(await gate.run(() => Promise.resolve("after"))).toBe("after");
    expect(gate.running).toBe(0);
  });

  it("refuses a read that waited `waitMs` for its turn, without ever running it", async () => {
    vi.useFakeTimers();
    const gate = new LoadGate({ concurrency: 1, queue: 5, waitMs: 1_000 });
    const first = deferred();
    const running = gate.run(() => first.promise);
    let ran = false;
    const waiting = gate.run(() => {
      ran = true;
      return Promise.resolve("late");
    });
    const refused = expect(waiting).rejects.toEqual(new ServiceError("wallet_unavailable"));
    await vi.advanceTimersByTimeAsync(1_000);
    await refused;
    expect(gate.queued).toBe(0);
    first.resolve("a");
    expect(await running).toBe("a");
    expect(ran).toBe(false);
    expect(gate.running).toBe(0);
  });
});
