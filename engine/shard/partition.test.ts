import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PARTITIONS, fnv1a32, partitionOf, partitionsOfShard, shardOf } from "./partition.js";

describe("fnv1a32", () => {
  it.each([
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["foobar", 0xbf9cf968],
  ])("hashes %j to the published FNV-1a 32-bit value", (text, hash) => {
    expect(fnv1a32(text)).toBe(hash);
  });
});

describe("partitions", () => {
  it("gives every shard a disjoint share that together covers all partitions", () => {
    for (const shards of [1, 2, 3, 7, 256]) {
      const owned = Array.from({ length: shards }, (_, shard) => partitionsOfShard(shard, shards)).flat();
      expect(owned.sort((a, b) => a - b)).toEqual(Array.from({ length: PARTITIONS }, (_, p) => p));
    }
  });

  it("places an account on the shard that owns its partition", () => {
    for (let i = 0; i < 200; i++) {
      const id = randomUUID();
      const shard = shardOf(id, 3);
      expect(partitionsOfShard(shard, 3)).toContain(partitionOf(id));
    }
  });

  it("spreads random account ids over every partition", () => {
    const seen = new Set<number>();
    for (let i = 0; i < 20_000; i++) seen.add(partitionOf(randomUUID()));
    expect(seen.size).toBe(PARTITIONS);
  });
});
