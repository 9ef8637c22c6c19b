import { describe, expect, it } from "vitest";
import { Lanes } from "./lanes.js";

const A = "a";
const B = "b";

/** A task that runs until `finish` is called, noting when it started. */
function gated(log: string[], name: string) {
  let finish = (): void => undefined;
  const task = (): Promise<void> => {
    log.push(`start ${name}`);
    return new Promise<void>((resolve) => {
      finish = () => {
        log.push(`end ${name}`);
        resolve();
      };
    });
  };
  return { task, finish: () => finish() };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("Lanes", () => {
  it("runs one account's operations one after another, in the order given", async () => {
    const lanes = new Lanes();
    const log: string[] = [];
    const first = gated(log, "a1");
    const second = gated(log, "a2");
    void lanes.run([A], first.task, () => undefined);
    void lanes.run([A], second.task, () => undefined);
    await settle();
    expect(log).toEqual(["start a1"]);
    first.finish();
    await settle();
    expect(log).toEqual(["start a1", "end a1", "start a2"]);
  });

  it("runs operations on different accounts side by side", async () => {
    const lanes = new Lanes();
    const log: string[] = [];
    const onA = gated(log, "a");
    const onB = gated(log, "b");
    void lanes.run([A], onA.task, () => undefined);
    void lanes.run([B], onB.task, () => undefined);
    await settle();
    expect(log).toEqual(["start a", "start b"]);
    onB.finish();
    await settle();
    expect(log).toEqual(["start a", "start b", "end b"]);
  });

  it("runs a barrier once everything before it ended, and everything after it once it ended", async () => {
    const lanes = new Lanes();
    const log: string[] = [];
    const onA = gated(log, "a");
    const onB = gated(log, "b");
    const barrier = gated(log, "all");
    const after = gated(log, "b2");
    void lanes.run([A], onA.task, () => undefined);
    void lanes.run([B], onB.task, () => undefined);
    void lanes.run("all", barrier.task, () => undefined);
    void lanes.run([B], after.task, () => undefined);
    await settle();
    onB.finish();
    await settle();
    expect(log).toEqual(["start a", "start b", "end b"]);
    onA.finish();
    await settle();
    expect(log.at(-1)).toBe("start all");
    barrier.finish();
    await settle();
    expect(log.slice(-2)).toEqual(["end all", "start b2"]);
  });

  it("waits for every account an operation names (a batch over two accounts)", async () => {
    const lanes = new Lanes();
    const log: string[] = [];
    const onA = gated(log, "a");
    const both = gated(log, "ab");
    void lanes.run([A], onA.task, () => undefined);
    void lanes.run([A, B, B], both.task, () => undefined);
    await settle();
    expect(log).toEqual(["start a"]);
    onA.finish();
    await settle();
    expect(log).toEqual(["start a", "end a", "start ab"]);
  });

  it("tells an account busy only while an operation on it runs, and calls `ended` before the next starts", async () => {
    const lanes = new Lanes();
    const log: string[] = [];
    const first = gated(log, "a1");
    const second = gated(log, "a2");
    const seen: boolean[] = [];
    void lanes.run([A], first.task, () => {
      log.push("ended a1");
      seen.push(lanes.busy(A));
    });
    void lanes.run([A], second.task, () => undefined);
    expect(lanes.busy(A)).toBe(false);
    await settle();
    expect(lanes.busy(A)).toBe(true);
    expect(lanes.busy(B)).toBe(false);
    first.finish();
    await settle();
    // Between two operations of one account its events may go: the first's answer is out.
    expect(seen).toEqual([false]);
    expect(log).toEqual(["start a1", "end a1", "ended a1", "start a2"]);
    second.finish();
    await settle();
    expect(lanes.busy(A)).toBe(false);
  });

  it("goes on after a task that throws", async () => {
    const lanes = new Lanes();
    const log: string[] = [];
    void lanes.run(
      [A],
      () => Promise.reject(new Error("boom")),
      () => log.push("ended 1"),
    );
    await lanes.run(
      [A],
      () => Promise.resolve(void log.push("ran 2")),
      () => log.push("ended 2"),
    );
    expect(log).toEqual(["ended 1", "ran 2", "ended 2"]);
  });
});
