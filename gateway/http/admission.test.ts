import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Admission, STANDING_QUEUE_MS, type AdmissionOptions, type Permit } from "./admission.js";
import type { ShedReason } from "./admission.js";

type Result = Permit | ShedReason | undefined;

function admission(overrides: Partial<AdmissionOptions> = {}, limit = 2): Admission {
  return new Admission({
    limit: { initial: limit, min: limit, max: limit },
    perKey: 2,
    maxQueue: 10,
    perKeyQueue: 3,
    queueTimeoutMs: 25,
    now: () => 0,
    ...overrides,
  });
}

/** Admits one request and returns a getter of its outcome (undefined while it waits). */
function ask(control: Admission, key: string, critical = false): () => Result {
  let result: Result;
  control.admit(key, critical, (outcome) => {
    result = outcome;
  });
  return () => result;
}

const permit = (result: Result): Permit => {
  if (result === undefined || typeof result === "string") throw new Error(`not admitted: ${String(result)}`);
  return result;
};

describe("Admission", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("admits at once while there is room, then queues, then sheds when the queue is full", () => {
    const control = admission({ maxQueue: 2, perKeyQueue: 5 }, 2);
    const a = ask(control, "a");
    const b = ask(control, "b");
    expect(typeof a()).toBe("object");
    expect(typeof b()).toBe("object");
    const c = ask(control, "c");
    const d = ask(control, "d");
    expect([c(), d()]).toEqual([undefined, undefined]);
    expect(control.waiting).toBe(2);
    expect(ask(control, "e")()).toBe("queue_full");
    permit(a()).release(true);
    expect(typeof c()).toBe("object");
    expect(d()).toBeUndefined();
    expect(control.inFlight).toBe(2);
  });

  it("sheds a waiting request at its deadline, and never admits it afterwards", () => {
    const control = admission({}, 1);
    const first = ask(control, "a");
    const second = ask(control, "b");
    vi.advanceTimersByTime(24);
    expect(second()).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(second()).toBe("queue_timeout");
    permit(first()).release(true);
    expect(control.inFlight).toBe(0);
    expect(control.waiting).toBe(0);
  });

  it("holds one key to its own bound in flight and its own queue", () => {
    const control = admission({ perKey: 2, perKeyQueue: 1 }, 10);
    const [one, two] = [ask(control, "a"), ask(control, "a")];
    expect(typeof one()).toBe("object");
    expect(typeof two()).toBe("object");
    const three = ask(control, "a");
    expect(three()).toBeUndefined();
    expect(ask(control, "a")()).toBe("key_queue_full");
    // Another key is not held back by the first one's flood.
    expect(typeof ask(control, "b")()).toBe("object");
    permit(one()).release(true);
    expect(typeof three()).toBe("object");
  });

  it("serves waiting keys in turn, one request each, whatever order they arrived in", () => {
    const control = admission({ perKey: 10, perKeyQueue: 10 }, 1);
    let current = permit(ask(control, "x")());
    const order: string[] = [];
    const wait = (key: string): void => {
      control.admit(key, false, (outcome) => {
        order.push(key);
        current = permit(outcome);
      });
    };
    for (const key of ["a", "a", "a", "a", "b", "c", "c"]) wait(key);
    for (let i = 0; i < 7; i++) current.release(true);
    expect(order).toEqual(["a", "b", "c", "a", "c", "a", "a"]);
  });

  it("admits requests that reduce risk before the others, beyond the key's own bound", () => {
    const control = admission({ perKey: 1 }, 1);
    const held = permit(ask(control, "a")());
    const read = ask(control, "b");
    const cancel = ask(control, "a", true);
    held.release(true);
    expect(typeof cancel()).toBe("object");
    expect(read()).toBeUndefined();
  });

  it("releases a permit once, however often it is released", () => {
    const control = admission({}, 2);
    const one = permit(ask(control, "a")());
    one.release(true);
    one.release(false);
    expect(control.inFlight).toBe(0);
    expect(typeof ask(control, "a")()).toBe("object");
    expect(typeof ask(control, "a")()).toBe("object");
    expect(control.inFlight).toBe(2);
  });

  it("forgets a key once it has nothing in flight or waiting", () => {
    const control = admission({}, 1);
    const held = permit(ask(control, "a")());
    for (let i = 0; i < 3; i++) ask(control, `k${i}`);
    vi.advanceTimersByTime(25);
    held.release(true);
    const keys = (control as unknown as { keys: Map<string, unknown>; turns: Map<string, unknown> }).keys;
    const turns = (control as unknown as { turns: Map<string, unknown> }).turns;
    expect(keys.size).toBe(0);
    expect(turns.size).toBe(0);
  });

  it("gives a burst at an idle gateway the long wait, and a queue that stands the short one", () => {
    let clock = 0;
    const control = admission({ queueTimeoutMs: 25, burstTimeoutMs: 500, now: () => clock, perKeyQueue: 10 }, 1);
    const held = permit(ask(control, "a")());
    const burst = ask(control, "b");
    vi.advanceTimersByTime(400);
    expect(burst()).toBeUndefined();
    // The queue has not been empty for longer than STANDING_QUEUE_MS: a newcomer waits the short time.
    clock = STANDING_QUEUE_MS + 1;
    const standing = ask(control, "c");
    vi.advanceTimersByTime(25);
    expect(standing()).toBe("queue_timeout");
    vi.advanceTimersByTime(75);
    expect(burst()).toBe("queue_timeout");
    // Emptied: the next burst waits long again.
    clock += 1_000;
    const next = ask(control, "d");
    vi.advanceTimersByTime(400);
    expect(next()).toBeUndefined();
    held.release(true);
    expect(typeof next()).toBe("object");
  });

  it("keeps the long wait for a key far under its share while a flooding key's newcomers are shed after the short one", () => {
    let clock = 0;
    const control = admission(
      { perKey: 4, maxQueue: 20, perKeyQueue: 10, queueTimeoutMs: 25, burstTimeoutMs: 500, now: () => clock },
      8,
    );
    for (let i = 0; i < 4; i++) permit(ask(control, "flood")());
    const others = Array.from({ length: 4 }, () => permit(ask(control, "other")()));
    for (let i = 0; i < 3; i++) ask(control, "flood");
    clock = STANDING_QUEUE_MS + 1;
    const flooded = ask(control, "flood");
    const light = ask(control, "light");
    vi.advanceTimersByTime(25);
    expect(flooded()).toBe("queue_timeout");
    expect(light()).toBeUndefined();
    // The flooding key is at its own bound: the light key is next.
    others[0]?.release(true);
    expect(typeof light()).toBe("object");
  });

  it("makes room in a full queue for a light key by shedding the heaviest key's newest waiter", () => {
    const control = admission({ perKey: 8, maxQueue: 4, perKeyQueue: 10 }, 8);
    const held = Array.from({ length: 8 }, () => permit(ask(control, "flood")()));
    const waiting = Array.from({ length: 4 }, () => ask(control, "flood"));
    expect(ask(control, "flood")()).toBe("queue_full");
    const light = ask(control, "light");
    expect(light()).toBeUndefined();
    expect(waiting.map((w) => w())).toEqual([undefined, undefined, undefined, "queue_full"]);
    expect(control.waiting).toBe(4);
    // Round robin: the flooding key's oldest waiter, then the light key.
    held[0]?.release(true);
    expect(typeof waiting[0]?.()).toBe("object");
    held[1]?.release(true);
    expect(typeof light()).toBe("object");
  });

  it("treats every key alike when the bound split over the active keys gives each under two slots", () => {
    const control = admission({ perKey: 4, maxQueue: 2, perKeyQueue: 10 }, 4);
    for (const key of ["a", "b", "c", "d"]) permit(ask(control, key)());
    ask(control, "a");
    ask(control, "b");
    // Five active keys share a bound of 4: nobody is light, a newcomer meets a full queue.
    expect(ask(control, "e")()).toBe("queue_full");
  });

  it("refuses settings that cannot work", () => {
    expect(() => admission({ perKey: 0 })).toThrow(RangeError);
    expect(() => admission({ queueTimeoutMs: -1 })).toThrow(RangeError);
    expect(() => new Admission({ ...baseOptions(), limit: { initial: 1, min: 2, max: 3 } })).toThrow(RangeError);
  });
});

function baseOptions(): AdmissionOptions {
  return { limit: { initial: 2, min: 1, max: 4 }, perKey: 1, maxQueue: 1, perKeyQueue: 1, queueTimeoutMs: 1 };
}
