// The compiled build (scripts/build.ts, what `npm run build` makes) run as the image runs it: plain `node` on
// the JavaScript (this test's own node binary, no loader), in a folder holding only the build and a
// node_modules of the production dependencies (no tsx, no esbuild, no TypeScript, no dev dependency), so a
// process or shard thread that still needed TypeScript or a development package fails here.
// The build is made afresh by the test (emit only: `npm run check` type-checks the same sources).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServices, runtimeAssets } from "../../scripts/build.js";
import { newKey, v1, type CreatedKey } from "../harness/client.js";
import { launchNpmStart, readyOrKill, type NpmStart } from "../harness/npm-start.js";
import { linkProductionModules } from "../harness/production-packages.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";

describe("the compiled stack", () => {
  let folder: string;
  let stack: NpmStart;
  let trader: CreatedKey;

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), "fts-compiled-"));
    buildServices(path.join(folder, "dist"), { typeCheck: false });
    linkProductionModules(path.join(folder, "node_modules"));
    stack = await launchNpmStart({ supervisor: { args: ["dist/scripts/start.js"], cwd: folder } });
    await readyOrKill(stack);
  });

  afterAll(async () => {
    if (stack !== undefined && stack.exitCode === undefined) {
      stack.child.kill("SIGTERM");
      await stack.exited;
    }
    if (stack !== undefined) rmSync(stack.dataDir, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  });

  it("holds every file the processes read besides their modules, where the sources have it", () => {
    expect(runtimeAssets()).toEqual(expect.arrayContaining(["proto/engine/v1/engine.proto"]));
    for (const asset of runtimeAssets()) expect(existsSync(path.join(folder, "dist", asset)), asset).toBe(true);
  });

  it("creates a key on /api, then reads and trades on /v1 through every process and a shard thread", async () => {
    trader = await newKey(stack.api, "compiled", { label: "smoke", permissions: ["READ_ONLY", "TRADE"] });
    const tickers = await v1(stack.v1Base, "/v1/tickers", trader);
    expect(tickers.status).toBe(200);
    expect((tickers.body.data as unknown[]).length).toBeGreaterThanOrEqual(20);
    const post = (route: string, body: unknown) =>
      v1(stack.v1Base, route, trader, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const account = await post("/v1/account", { plan_id: PLAN_10K, label: "compiled" });
    expect(account.status, JSON.stringify(account.body)).toBe(201);
    const order = await post("/v1/order", {
      account_id: account.body.account_id,
      symbol: "BTC-USD",
      side: "BUY",
      kind: "MARKET",
      quantity: "0.01",
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect(order.body.order).toMatchObject({ symbol: "BTC-USD", side: "BUY", status: "FILLED", filled_quantity: 0.01 });
  });

  it("stops cleanly on SIGTERM", async () => {
    stack.child.kill("SIGTERM");
    expect(await stack.exited, stack.output).toBe(0);
    stack.lines.assertEachKeyOnce();
  });
});
