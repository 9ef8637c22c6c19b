import { describe, expect, it } from "vitest";
import { FinalQueue } from "./final-queue.js";

describe("FinalQueue", () => {
  it("equals another with the same ids and times in order, whatever slots either gave up (test/equality.ts)", () => {
    const live = FinalQueue.from([
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ]);
    live.shift();
    live.delete("b");
    expect(live).toEqual(FinalQueue.from([["c", 3]]));
    expect(live).not.toEqual(FinalQueue.from([["c", 4]]));
    expect(live).not.toEqual(FinalQueue.from([["d", 3]]));
    expect(live).not.toEqual(new FinalQueue());
    const miscounted = FinalQueue.from([["c", 3]]);
    miscounted.size = 2;
    expect(live).not.toEqual(miscounted);
    expect({ finals: live }).not.toEqual({ finals: new Map([["c", 3]]) });
  });

  it("gives ids back oldest first, with their times, as a Map's insertion order would", () => {
    const queue = new FinalQueue();
    queue.push("a", 10);
    queue.push("b", 20);
    queue.push("c", 30);
    expect(queue.size).toBe(3);
    expect(queue.entries()).toEqual([
      ["a", 10],
      ["b", 20],
      ["c", 30],
    ]);
    expect(queue.oldestAt()).toBe(10);
    expect(queue.shift()).toBe("a");
    expect(queue.oldestAt()).toBe(20);
    expect(queue.size).toBe(2);
  });

  it("takes an id off anywhere; the gap is skipped and a re-queued id goes last", () => {
    const queue = FinalQueue.from([
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ]);
    expect(queue.delete("a")).toBe(true);
    expect(queue.delete("a")).toBe(false);
    expect(queue.entries().map(([id]) => id)).not.toContain("a");
    expect(queue.delete("b")).toBe(true);
    expect(queue.size).toBe(1);
    expect(queue.oldestAt()).toBe(3);
    queue.push("a", 4);
    expect(queue.entries()).toEqual([
      ["c", 3],
      ["a", 4],
    ]);
    expect(queue.shift()).toBe("c");
    expect(queue.shift()).toBe("a");
    expect(queue.shift()).toBeUndefined();
    expect(queue.oldestAt()).toBeUndefined();
    expect(queue.size).toBe(0);
  });

  it("keeps its order and times across compactions of the slots it gave up", () => {
    const queue = new FinalQueue();
    const expected: [string, number][] = [];
    for (let i = 0; i < 1_000; i++) {
      queue.push(`o-${i}`, i);
      expected.push([`o-${i}`, i]);
      if (i % 3 === 0) {
        expect(queue.shift()).toBe(expected.shift()?.[0]);
      }
      if (i % 7 === 0 && expected.length > 0) {
        const [id] = expected.splice(expected.length - 1, 1)[0] as [string, number];
        expect(queue.delete(id)).toBe(true);
      }
    }
    expect(queue.entries()).toEqual(expected);
    expect(queue.size).toBe(expected.length);
    while (expected.length > 0) {
      expect(queue.oldestAt()).toBe(expected[0]?.[1]);
      expect(queue.shift()).toBe(expected.shift()?.[0]);
    }
    expect(queue.size).toBe(0);
  });
});
