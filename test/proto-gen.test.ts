// The TypeScript types in proto/gen are generated, never edited: regenerating them must change nothing.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function files(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full, `${prefix}${name}/`) : [`${prefix}${name}`];
  });
}

describe("generated proto types", () => {
  const out = mkdtempSync(path.join(tmpdir(), "fts-gen-"));
  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
  });

  it("match what scripts/gen-proto.sh produces from proto/ today", () => {
    execFileSync("bash", [path.join(ROOT, "scripts/gen-proto.sh"), out], { cwd: ROOT, stdio: "ignore" });
    const committed = path.join(ROOT, "proto/gen");
    expect(files(out).sort()).toEqual(files(committed).sort());
    for (const file of files(committed)) {
      expect(readFileSync(path.join(out, file), "utf8"), file).toBe(readFileSync(path.join(committed, file), "utf8"));
    }
  });
});
