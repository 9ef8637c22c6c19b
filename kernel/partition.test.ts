import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  PARTITIONS,
  accountIdFor,
  engineOfPartition,
  fnv1a32,
  idInPartition,
  mintIdInPartition,
  partitionOf,
  partitionOfId,
  partitionsOfEngine,
  partitionsOfShard,
  shardOf,
  shardOfPartition,
} from "./partition.js";

describe("fnv1a32", () => {
  it.each([
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["foobar", 0xbf9cf968],
  ])("hashes %j to the published FNV-1a 32-bit value", (text, hash) => {
    expect(fnv1a32(text)).toBe(hash);
  });

  it("hashes the UTF-8 bytes of any text, ASCII or not", () => {
    const overBytes = (text: string): number => {
      let hash = 0x811c9dc5;
      for (const byte of Buffer.from(text, "utf8")) hash = Math.imul(hash ^ byte, 0x01000193);
      return hash >>> 0;
    };
    expect(fnv1a32("é")).toBe(overBytes("é"));
    expect(fnv1a32("abc\u{1F600}")).toBe(overBytes("abc\u{1F600}"));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.uuid()), (text) => {
        expect(fnv1a32(text)).toBe(overBytes(text));
      }),
    );
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

describe("engine ownership", () => {
  const ALL = Array.from({ length: PARTITIONS }, (_, p) => p);
  const layouts = [
    [1, 1],
    [1, 2],
    [2, 2],
    [2, 4],
    [3, 2],
    [4, 4],
    [2, 3],
    [5, 7],
  ] as const;

  it.each(layouts)(
    "with %i engines of %i shards owns every partition by exactly one engine and shard",
    (engines, shards) => {
      const owners = new Map<number, string>();
      for (let engine = 0; engine < engines; engine++) {
        for (let shard = 0; shard < shards; shard++) {
          for (const partition of partitionsOfShard(shard, shards, engine, engines)) {
            expect(owners.get(partition)).toBeUndefined();
            owners.set(partition, `${engine}/${shard}`);
            expect(engineOfPartition(partition, engines)).toBe(engine);
            expect(shardOfPartition(partition, shards, engines)).toBe(shard);
          }
        }
      }
      expect([...owners.keys()].sort((a, b) => a - b)).toEqual(ALL);
    },
  );

  it.each(layouts)(
    "with %i engines of %i shards gives every shard of every engine a share (no aliasing)",
    (engines, shards) => {
      for (let engine = 0; engine < engines; engine++) {
        const sizes = Array.from(
          { length: shards },
          (_, shard) => partitionsOfShard(shard, shards, engine, engines).length,
        );
        const owned = partitionsOfEngine(engine, engines).length;
        // Balanced to within one partition: p % shards would leave shard 1 of 2 empty when engines = shards = 2.
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        expect(sizes.reduce((a, b) => a + b, 0)).toBe(owned);
      }
    },
  );

  it("keeps the single-engine layout of p % shards", () => {
    for (const partition of ALL) expect(shardOfPartition(partition, 3)).toBe(partition % 3);
  });

  it("mints account ids only in partitions of the engine that creates them", () => {
    for (const engine of [0, 1, 2]) {
      for (let i = 0; i < 100; i++) {
        const id = accountIdFor(engine, 3, randomUUID);
        expect(partitionOf(id) % 3).toBe(engine);
        expect(shardOf(id, 2, 3)).toBe(shardOfPartition(partitionOf(id), 2, 3));
      }
    }
  });
});

describe("mintIdInPartition", () => {
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it("mints v4 UUIDs that name their partition, like idInPartition over randomUUID", () => {
    for (let partition = 0; partition < PARTITIONS; partition++) {
      for (let i = 0; i < 40; i++) {
        const id = mintIdInPartition(partition);
        expect(id).toMatch(V4);
        expect(partitionOfId(id)).toBe(partition);
        expect(partitionOfId(idInPartition(partition, randomUUID()))).toBe(partition);
      }
    }
  });

  it("never repeats an id across many refills of its entropy pool", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(mintIdInPartition(i % PARTITIONS));
    expect(seen.size).toBe(100_000);
  });

  it("draws every random nibble: each hex digit appears in each random position", () => {
    // 30 random hex positions (32 less the partition byte's two), 4,000 ids: a stuck digit would show.
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 4_000; i++) {
      const id = mintIdInPartition(7);
      for (let at = 0; at < 36; at++) digits[at]?.add(id.charAt(at));
    }
    const fixed = new Set([0, 1, 8, 13, 14, 18, 19, 23]);
    for (let at = 0; at < 36; at++) {
      if (fixed.has(at)) continue;
      expect(digits[at]?.size, `position ${at}`).toBe(16);
    }
    expect([...(digits[14] ?? [])]).toEqual(["4"]);
    expect([...(digits[19] ?? [])].sort()).toEqual(["8", "9", "a", "b"]);
  });
});
