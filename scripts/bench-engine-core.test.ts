import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { partitionOfId } from "../kernel/partition.js";
import { coreScenariosArg, loadEngine, measuredRounds, pairedRatio, SCENARIOS } from "./bench-engine-core.js";

describe("coreScenariosArg", () => {
  it("runs every scenario without the flag, the named ones with it, and refuses an unknown name", () => {
    expect(coreScenariosArg(["node", "bench-engine.ts", "--only=core"])).toBeUndefined();
    expect(coreScenariosArg(["--only=core", "--core-scenarios=market,limit"])).toEqual(["market", "limit"]);
    expect(SCENARIOS).toEqual(["limit", "market", "mix", "limit+shell"]);
    expect(() => coreScenariosArg(["--core-scenarios=limit,fast"])).toThrow(/unknown core scenario fast/);
  });
});

describe("loadEngine", () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

  it("loads this tree's engine (the factory layout) and drives a decision with it", async () => {
    const engine = await loadEngine(root, "here");
    expect(engine.label).toBe("here");
    const market = engine.core.updateMarket?.(undefined, { prices: [] }, Date.now());
    const decision = engine.core.decide(
      undefined,
      {
        userId: "u1",
        command: {
          type: "OpenAccount",
          request: { account_id: randomUUID(), user_id: "u1", plan_id: "15ef9280-770d-4664-9de7-93fcd7677a98" },
        },
      },
      { now: Date.now(), market, nextId: randomUUID },
    );
    expect(decision.reply.kind).toBe("created");
    const id = engine.minterOf(7)();
    expect(partitionOfId(id)).toBe(7);
    expect(engine.minterOf(7)).toBe(engine.minterOf(7));
  });

  /** A checkout-like folder whose engine and partitioning re-export this tree's from the given files. */
  function layout(files: { core: string; partition: string; exports: "mint" | "idInPartition" }): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), "bench-layout-"));
    const core = pathToFileURL(path.join(root, "engine", "trading-core.ts")).href;
    const partition = pathToFileURL(path.join(root, "kernel", "partition.ts")).href;
    mkdirSync(path.dirname(path.join(dir, files.core)), { recursive: true });
    mkdirSync(path.dirname(path.join(dir, files.partition)), { recursive: true });
    writeFileSync(
      path.join(dir, files.core),
      `import { createCore } from ${JSON.stringify(core)};\nexport const core = createCore();\n`,
    );
    writeFileSync(
      path.join(dir, files.partition),
      files.exports === "mint"
        ? `export { mintIdInPartition } from ${JSON.stringify(partition)};\n`
        : `export { idInPartition } from ${JSON.stringify(partition)};\n`,
    );
    return dir;
  }

  it.each([
    ["the shared core of engine/actor.ts", "engine/actor.ts", "engine/shard/partition.ts", "mint"],
    ["engine/actor.ts with kernel/partition.ts", "engine/actor.ts", "kernel/partition.ts", "mint"],
    ["a partitioning without its own minter", "engine/actor.ts", "engine/shard/partition.ts", "idInPartition"],
  ] as const)("loads an earlier layout: %s", async (_name, core, partition, exports) => {
    const dir = layout({ core, partition, exports });
    try {
      const engine = await loadEngine(dir, "earlier");
      expect(typeof engine.core.decide).toBe("function");
      const id = engine.minterOf(3)();
      expect(partitionOfId(id)).toBe(3);
      expect(engine.minterOf(3)()).not.toBe(id);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a folder with no engine in a known place", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "bench-layout-"));
    try {
      await expect(loadEngine(dir, "none")).rejects.toThrow(/no engine in a known layout/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the rounds against a baseline", () => {
  it("measures an even number of rounds per engine with a baseline, the options' rounds without", () => {
    expect(measuredRounds({ rounds: 5 })).toBe(5);
    expect(measuredRounds({ rounds: 5, baseline: { dir: "/x", label: "abc" } })).toBe(6);
    expect(measuredRounds({ rounds: 8, baseline: { dir: "/x", label: "abc" } })).toBe(8);
  });

  it("pairs round m with round m and takes the median of the ratios", () => {
    const own = [
      { perSecond: 90, perCpuSecond: 100 },
      { perSecond: 50, perCpuSecond: undefined },
      { perSecond: 120, perCpuSecond: 110 },
    ];
    const baseline = [
      { perSecond: 100, perCpuSecond: 100 },
      { perSecond: 100, perCpuSecond: 80 },
      { perSecond: 100, perCpuSecond: 100 },
    ];
    // Wall ratios 0.9, 0.5, 1.2: median 0.9. CPU ratios of the pairs that have both: 1.0, 1.1 (median 1.05).
    expect(pairedRatio("market", own, baseline)).toEqual({ name: "market", wall: 0.9, perCpu: 1.05 });
    expect(pairedRatio("limit", own.slice(0, 1), [])).toMatchObject({ name: "limit", perCpu: null });
  });
});
