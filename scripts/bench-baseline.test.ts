// `--baseline=REV` of npm run bench / bench:engine: the argument, and the temporary checkout of the baseline.
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { baselineArg, checkoutBaseline, cleanupAll, coreRoundsArg, coreRunOf } from "./bench-session.js";

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
  it("checks a commit out with the repository's node_modules linked in, and clean-up leaves no folder or worktree entry", async () => {
    // A throwaway repository of two commits: the test neither needs nor touches this one's .git.
    const repo = realpathSync(mkdtempSync(path.join(os.tmpdir(), "bench-repo-")));
    try {
      const git = (...args: string[]): string =>
        execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      git("init", "-q");
      const commit = (text: string): void => {
        writeFileSync(path.join(repo, "file.txt"), text);
        git("add", "file.txt");
        git("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-qm", text);
      };
      commit("first");
      const first = git("rev-parse", "--short", "HEAD").trim();
      commit("second");

      const { dir, label } = checkoutBaseline("HEAD~1", repo);
      expect(label).toBe(first);
      expect(readFileSync(path.join(dir, "file.txt"), "utf8")).toBe("first");
      expect(lstatSync(path.join(dir, "node_modules")).isSymbolicLink()).toBe(true);
      expect(git("worktree", "list")).toContain(realpathSync(dir));
      await cleanupAll();
      expect(existsSync(dir)).toBe(false);
      expect(git("worktree", "list").trim().split("\n")).toHaveLength(1);
      expect(() => checkoutBaseline("no-such-revision", repo)).toThrow(/--baseline=no-such-revision: no such commit/);

      // A shallow clone holds only its newest commit: the error says how to bring the history.
      const shallow = realpathSync(mkdtempSync(path.join(os.tmpdir(), "bench-shallow-")));
      try {
        execFileSync("git", ["clone", "-q", "--depth=1", `file://${repo}`, shallow], { stdio: "ignore" });
        expect(() => checkoutBaseline(first, shallow)).toThrow(/shallow clone: `git fetch --unshallow`/);
      } finally {
        rmSync(shallow, { recursive: true, force: true });
      }
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
