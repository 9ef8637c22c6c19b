import { describe, expect, it } from "vitest";
import { fnv1a32 } from "../../kernel/partition.js";
import { KeyFilter } from "./key-filter.js";

const keys = (count: number, prefix = "client-"): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe("KeyFilter", () => {
  it("holds nothing before the first key and allocates no table", () => {
    const filter = new KeyFilter();
    expect(filter.mayHold("anything")).toBe(false);
    expect(filter.size).toBe(0);
    expect(filter.hashes()).toEqual([]);
  });

  it("finds every key it was given, through several doublings", () => {
    const filter = new KeyFilter();
    const added = keys(5_000);
    for (const key of added) filter.add(key);
    expect(filter.size).toBe(5_000);
    for (const key of added) expect(filter.mayHold(key)).toBe(true);
  });

  it("finds a key never given only when its hash collides with one given", () => {
    const filter = new KeyFilter();
    for (const key of keys(2_000)) filter.add(key);
    const held = new Set(filter.hashes());
    for (const key of keys(2_000, "other-")) expect(filter.mayHold(key)).toBe(held.has(fnv1a32(key) || 1));
  });

  it("counts a key added twice once", () => {
    const filter = new KeyFilter();
    filter.add("a");
    filter.add("a");
    expect(filter.size).toBe(1);
  });

  it("lays its table out the same whatever order the keys came in, so a restored filter equals a replayed one", () => {
    const added = keys(700);
    const forward = new KeyFilter();
    for (const key of added) forward.add(key);
    const backward = new KeyFilter();
    for (const key of [...added].reverse()) backward.add(key);
    expect(backward).toEqual(forward);
    expect(KeyFilter.fromHashes(forward.hashes())).toEqual(forward);
  });

  it("refuses a value that is not a 32-bit hash", () => {
    expect(() => KeyFilter.fromHashes([0])).toThrow(/not a hash/);
    expect(() => KeyFilter.fromHashes([2 ** 32])).toThrow(/not a hash/);
  });
});
