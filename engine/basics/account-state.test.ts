import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PLANS } from "./plans.js";
import { accountStateFrom, defaultVenueFor, forkState } from "./account-state.js";
import { OverlayTable } from "./overlay-table.js";

const plan10k = PLANS.byKey("48a184ce-7d26-4b3f-82e3-cbf4f08383ba");
const plan100k = PLANS.byKey("c671cd31-b56a-41fe-8d80-41fda892fbca");
if (plan10k === undefined || plan100k === undefined) throw new Error("plans missing");

type Op = { kind: "set"; key: number; value: number } | { kind: "delete"; key: number };

const ops = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant("set" as const), key: fc.integer({ min: 0, max: 12 }), value: fc.integer() }),
    fc.record({ kind: fc.constant("delete" as const), key: fc.integer({ min: 0, max: 12 }) }),
  ),
  { maxLength: 40 },
);

describe("OverlayTable", () => {
  it("behaves like a copy of its base under any writes, and leaves the base untouched", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 10 }), ops, (seed, writes: Op[]) => {
        const base = new Map(seed.map((key) => [key, key * 10]));
        const snapshot = new Map(base);
        const copy = new Map(base);
        const overlay = new OverlayTable(base);
        for (const op of writes) {
          if (op.kind === "set") {
            copy.set(op.key, op.value);
            overlay.set(op.key, op.value);
          } else {
            expect(overlay.delete(op.key)).toBe(copy.delete(op.key));
          }
        }
        expect(base).toEqual(snapshot);
        expect(overlay.size).toBe(copy.size);
        expect(new Map(overlay)).toEqual(copy);
        expect([...overlay.keys()].sort()).toEqual([...copy.keys()].sort());
        // keys() and values() walk the entries in the entries' own order.
        const entries = [...overlay];
        expect([...overlay.keys()]).toEqual(entries.map(([key]) => key));
        expect([...overlay.values()]).toEqual(entries.map(([, value]) => value));
        // forEach walks them in that order too, value first as Map's does.
        const walked: [number, number][] = [];
        overlay.forEach((value, key) => walked.push([key, value]));
        expect(walked).toEqual([...copy]);
        for (let key = 0; key <= 12; key++) {
          expect(overlay.has(key)).toBe(copy.has(key));
          expect(overlay.get(key)).toBe(copy.get(key));
        }
      }),
    );
  });

  it("over an empty base, is a Map: same answers and the same iteration order, past its small size too", () => {
    const manyOps = fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant("set" as const), key: fc.integer({ min: 0, max: 30 }), value: fc.integer() }),
        fc.record({ kind: fc.constant("delete" as const), key: fc.integer({ min: 0, max: 30 }) }),
      ),
      { maxLength: 120 },
    );
    fc.assert(
      fc.property(manyOps, (writes: Op[]) => {
        const map = new Map<number, number>();
        const overlay = new OverlayTable<number, number>(new Map());
        for (const op of writes) {
          if (op.kind === "set") {
            map.set(op.key, op.value);
            overlay.set(op.key, op.value);
          } else {
            expect(overlay.delete(op.key)).toBe(map.delete(op.key));
          }
          expect(overlay.size).toBe(map.size);
        }
        expect([...overlay]).toEqual([...map]);
        expect([...overlay.keys()]).toEqual([...map.keys()]);
        expect([...overlay.values()]).toEqual([...map.values()]);
        for (let key = 0; key <= 30; key++) {
          expect(overlay.has(key)).toBe(map.has(key));
          expect(overlay.get(key)).toBe(map.get(key));
        }
      }),
    );
  });

  it("walks a base key deleted and set again after the others, as a Map does", () => {
    const overlay = new OverlayTable(
      new Map([
        [0, 0],
        [12, 120],
      ]),
    );
    overlay.delete(0);
    overlay.set(0, 5);
    const walked: [number, number][] = [];
    overlay.forEach((value, key) => walked.push([key, value]));
    expect(walked).toEqual([
      [12, 120],
      [0, 5],
    ]);
    expect([...overlay]).toEqual(walked);
    expect(overlay.size).toBe(2);
  });

  it("walks the table as it was when the walk began, touched or not (callers collect ids, then write)", () => {
    const untouched = new OverlayTable(
      new Map([
        [1, "a"],
        [2, "b"],
        [3, "c"],
      ]),
    );
    const seen: number[] = [];
    for (const key of untouched.keys()) {
      seen.push(key);
      untouched.delete(3);
      untouched.set(9, "z");
    }
    expect(seen).toEqual([1, 2, 3]);
    expect([...untouched.keys()]).toEqual([1, 2, 9]);

    const touched = new OverlayTable(
      new Map([
        [1, "a"],
        [2, "b"],
      ]),
    );
    touched.set(4, "d");
    const values: string[] = [];
    for (const value of touched.values()) {
      values.push(value);
      touched.delete(4);
    }
    expect(values).toEqual(["a", "b", "d"]);
    expect([...touched.values()]).toEqual(["a", "b"]);
  });

  it("iterates base keys in place, then new keys in insertion order", () => {
    const overlay = new OverlayTable(
      new Map([
        ["a", 1],
        ["b", 2],
        ["c", 3],
      ]),
    );
    overlay.set("d", 4);
    overlay.set("b", 20);
    overlay.delete("a");
    expect([...overlay]).toEqual([
      ["b", 20],
      ["c", 3],
      ["d", 4],
    ]);
  });
});

describe("account state", () => {
  const opened = accountStateFrom({
    type: "AccountOpened",
    at: Date.parse("2026-11-25T12:00:00.000Z"),
    account_id: "acc",
    user_id: "user",
    plan: plan10k,
    label: null,
    default_venue: "GMX",
    allowed_venues: ["GMX", "OSTIUM"],
    starting_balance: 1_000_000_000_000,
  });

  it("starts with the plan's starting balance on the day it opened", () => {
    expect(opened).toMatchObject({
      state: "ACTIVE",
      balance: 1_000_000_000_000,
      high_water_mark: 1_000_000_000_000,
      day_start_equity: 1_000_000_000_000,
      day: "2026-11-25",
      seq: 0,
    });
  });

  it("defaults the venue to the request, else the plan's first allowed venue", () => {
    expect(defaultVenueFor(plan10k, null)).toBe("GMX");
    expect(defaultVenueFor(plan10k, "OSTIUM")).toBe("OSTIUM");
    expect(defaultVenueFor(plan100k, null)).toBe("OSTIUM");
  });

  it("forks a draft that writes without touching the state", () => {
    const draft = forkState(opened);
    draft.balance = 1;
    draft.fills.push({} as never);
    draft.client_ids.set("c", { order_id: "o", fingerprint: "f", recorded_at: 0, response: {} as never });
    expect(opened.balance).toBe(1_000_000_000_000);
    expect(opened.fills).toEqual([]);
    expect(opened.client_ids.size).toBe(0);
  });
});
