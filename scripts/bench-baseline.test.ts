// `--baseline=REV` of npm run bench / bench:engine: the argument, and the temporary checkout of the baseline.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { baselineArg, checkoutBaseline, cleanupAll, coreRoundsArg, coreRunOf, ROOT } from "./bench-session.js";

describe("baselineArg", () => {
  it("takes a commit, branch or tag, nothing without the flag, and refuses what is not a revision", () => {
    expect(baselineArg(["node", "bench.ts"])).toBeUndefined();
    expect(baselineArg(["--baseline=5358a4e"])).toBe("5358a4e");
    expect(baselineArg(["--baseline=origin/main~3"])).toBe("origin/main~3");
    expect(() => baselineArg(["--baseline=a b"])).toThrow(/commit, branch or tag/);
    expect(() => baselineArg(["--baseline=$(id)"])).toThrow(/commit, branch or tag/);
  });
});

describe("coreRoundsArg and coreRunOf", () => {
  it("takes 1 to 100 measured rounds, and leaves out what the command line does not ask for", () => {
    expect(coreRoundsArg(["--core-rounds=12"])).toBe(12);
    expect(coreRoundsArg([])).toBeUndefined();
    for (const bad of ["0", "101", "2.5", "x"]) {
      expect(() => coreRoundsArg([`--core-rounds=${bad}`])).toThrow(/1 to 100/);
    }
    expect(coreRunOf(["node", "bench.ts"])).toEqual({});
    expect(coreRunOf(["--core-rounds=8", "--core-scenarios=market"])).toEqual({ rounds: 8, scenarios: ["market"] });
  });
});

describe("checkoutBaseline", () => {
  it("checks the commit out with this tree's node_modules and removes it, worktree entry and all, at clean-up", async () => {
    const head = execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    const { dir, label } = checkoutBaseline("HEAD");
    expect(label).toBe(head);
    expect(readFileSync(path.join(dir, "package.json"), "utf8")).toBe(
      execFileSync("git", ["-C", ROOT, "show", "HEAD:package.json"], { encoding: "utf8" }),
    );
    expect(lstatSync(path.join(dir, "node_modules")).isSymbolicLink()).toBe(true);
    const listed = (): string => execFileSync("git", ["-C", ROOT, "worktree", "list"], { encoding: "utf8" });
    expect(listed()).toContain(dir);
    await cleanupAll();
    expect(existsSync(dir)).toBe(false);
    expect(listed()).not.toContain(dir);
  });
});
