import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { partitionOfId } from "../kernel/partition.js";
import { coreScenariosArg, ENGINE_LAYOUTS, loadEngine, SCENARIOS } from "./bench-engine-core.js";

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

  it("loads an earlier layout (one shared core in engine/actor.ts) and refuses a folder with no engine", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "bench-layout-"));
    try {
      mkdirSync(path.join(dir, "engine", "shard"), { recursive: true });
      const core = pathToFileURL(path.join(root, "engine", "trading-core.ts")).href;
      const partition = pathToFileURL(path.join(root, "kernel", "partition.ts")).href;
      writeFileSync(
        path.join(dir, "engine", "actor.ts"),
        `import { createCore } from ${JSON.stringify(core)};\nexport const core = createCore();\n`,
      );
      writeFileSync(
        path.join(dir, "engine", "shard", "partition.ts"),
        `export { mintIdInPartition } from ${JSON.stringify(partition)};\n`,
      );
      const engine = await loadEngine(dir, "earlier");
      expect(typeof engine.core.decide).toBe("function");
      expect(partitionOfId(engine.minterOf(3)())).toBe(3);
      await expect(loadEngine(path.join(dir, "engine"), "none")).rejects.toThrow(/no engine in a known layout/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names the layouts newest first", () => {
    expect(ENGINE_LAYOUTS.map((l) => l.core)).toEqual(["engine/trading-core.ts", "engine/actor.ts"]);
  });
});
