// The client as someone outside this repository gets it (docs/client.md, "Installing"): `npm pack` on client/,
// the tarball installed into an empty folder under the system's temp directory, and from that folder, with plain
// node (this test's own binary, never tsx): a script importing @funded-trading/client that trades on a running
// stack, `ftrade` from node_modules/.bin, and `tsc` on a TypeScript script against the installed declarations.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newKey } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";
import { startStack, type Stack } from "../harness/stack.js";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const FIXTURE = path.join(ROOT, "test", "fixtures", "client-user");
const TSC = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
/**
 * npm's downloads and the stack's start may be slow on a busy machine; nothing here measures time. The setup
 * waits for up to two of these in a row, hence its own 600 s.
 */
const PATIENCE = { timeout: 240_000, maxBuffer: 16 * 1024 * 1024 };

/**
 * A shell outside the repository: without the settings `npm test` exports to its scripts (npm_package_*,
 * npm_lifecycle_*, the calling project's prefix) or NODE_OPTIONS, and with this test's node first on PATH, so
 * npm and the `#!/usr/bin/env node` of `ftrade` run on the same Node as the test.
 */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(
    ([name]) =>
      !/^npm_(package|lifecycle)_/i.test(name) &&
      !/^npm_config_(local_prefix|prefix|global_prefix|workspaces?)$/i.test(name) &&
      !["NODE_OPTIONS", "INIT_CWD", "npm_execpath", "npm_node_execpath", "npm_command"].includes(name),
  );
  return {
    ...Object.fromEntries(inherited),
    PATH: [path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter),
    ...extra,
  };
}

/** `npm pack` on client/ (its prepack builds dist/), then `npm install` of the tarball in `folder`. */
async function packAndInstall(folder: string): Promise<string> {
  writeFileSync(
    path.join(folder, "package.json"),
    `${JSON.stringify({ name: "ftrade-user", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
  );
  await run("npm", ["pack", "--workspace", "client", "--pack-destination", folder], {
    ...PATIENCE,
    cwd: ROOT,
    env: userEnv(),
  });
  const tarball = readdirSync(folder).find((name) => name.endsWith(".tgz"));
  if (tarball === undefined) throw new Error(`npm pack left no tarball in ${folder}`);
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", `./${tarball}`], {
    ...PATIENCE,
    cwd: folder,
    env: userEnv(),
  });
  for (const file of readdirSync(FIXTURE)) cpSync(path.join(FIXTURE, file), path.join(folder, file));
  return tarball;
}

let folder: string;
let tarball: string;
let stack: Stack;
let market: Market;
let api: string;
let v1: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), "ftrade-user-"));
  const started = startStack({ env: { PRICE_FEED: "push" } });
  // Both settle before anything else, so a failed install never leaves a stack running.
  const [installed, running] = await Promise.allSettled([packAndInstall(folder), started]);
  if (running.status === "fulfilled") stack = running.value;
  if (installed.status === "rejected") throw installed.reason;
  if (running.status === "rejected") throw running.reason;
  tarball = installed.value;
  api = stack.gateways[0]?.api ?? "";
  v1 = stack.gateways[0]?.v1 ?? "";
  market = marketClient(stack.engineGrpc);
  await market.push({ "BTC-USD": 50_000, "ETH-USD": 2_500 });
}, 600_000);

afterAll(async () => {
  market?.close();
  await stack?.stop();
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
});

describe("the client installed from its tarball outside the repository", () => {
  it("is named as docs/client.md shows and holds compiled JavaScript, declarations and the bin, no TypeScript sources", () => {
    expect(tarball).toBe("funded-trading-client-0.1.0.tgz");
    expect(path.relative(ROOT, folder).startsWith("..")).toBe(true);
    const installed = path.join(folder, "node_modules", "@funded-trading", "client");
    const files = readdirSync(installed, { recursive: true, encoding: "utf8" });
    expect(files).toEqual(
      expect.arrayContaining(["package.json", "bin/ftrade.js", "dist/index.js", "dist/index.d.ts", "dist/cli.js"]),
    );
    expect(files.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual([]);
    expect(files.filter((file) => file.startsWith("src") || /\.test\./.test(file))).toEqual([]);
  });

  it("brings neither tsx nor esbuild with it", () => {
    expect(existsSync(path.join(folder, "node_modules", "tsx"))).toBe(false);
    expect(existsSync(path.join(folder, "node_modules", "esbuild"))).toBe(false);
  });

  it("creates a key, lists tickers, opens an account and fills a market order from a plain-node script", async () => {
    const { stdout } = await run(process.execPath, ["trade.mjs", api, v1], {
      ...PATIENCE,
      cwd: folder,
      env: userEnv(),
    });
    expect(JSON.parse(stdout)).toMatchObject({
      btcMark: 50_000,
      state: "ACTIVE",
      balance: 10_000,
      placed: "accepted",
      orderStatus: "FILLED",
      orderQuantity: 0.0123,
      positions: [{ symbol: "BTC-USD", side: "BUY", quantity: 0.0123 }],
    });
    expect((JSON.parse(stdout) as { symbols: string[] }).symbols).toEqual(
      expect.arrayContaining(["BTC-USD", "ETH-USD"]),
    );
  });

  it("runs `ftrade --help` from node_modules/.bin", async () => {
    const ftrade = path.join(folder, "node_modules", ".bin", "ftrade");
    const { stdout } = await run(ftrade, ["--help"], { ...PATIENCE, cwd: folder, env: userEnv() });
    expect(stdout).toContain("Usage: ftrade [options] [command]");
    for (const command of ["keys", "tickers", "account", "order"])
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
  });

  it("runs `ftrade --json tickers` against the stack with the key in its environment", async () => {
    const key = await newKey(api, "tarball-cli", { label: "cli", permissions: ["READ_ONLY"] });
    const ftrade = path.join(folder, "node_modules", ".bin", "ftrade");
    const { stdout } = await run(ftrade, ["--json", "tickers"], {
      ...PATIENCE,
      cwd: folder,
      env: userEnv({ FTRADE_URL: v1, FTRADE_API_KEY: key.key, FTRADE_API_SECRET: key.secret, HOME: folder }),
    });
    const btc = (JSON.parse(stdout) as { symbol: string; mark_price: number }[]).find((t) => t.symbol === "BTC-USD");
    expect(btc?.mark_price).toBe(50_000);
  });

  it("type-checks a TypeScript script against the installed declarations", async () => {
    const checked = await run(process.execPath, [TSC, "-p", "tsconfig.json"], {
      ...PATIENCE,
      cwd: folder,
      env: userEnv(),
    })
      .then(() => "")
      .catch((error: unknown) => (error as { stdout?: string }).stdout ?? String(error));
    expect(checked).toBe("");
  });
});
