// docs/openapi.yaml as the ecosystem's tools read it: Redocly's linter (the recommended rules, redocly.yaml)
// finds no error and no warning, every rule switched off says why, and every $ref names a whole component,
// never a place inside one (Dredd and swagger-cli cannot follow `#/components/schemas/Plan/properties/…`).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ROOT } from "./harness/prometheus.js";

const SPEC = "docs/openapi.yaml";
const REDOCLY = path.join(ROOT, "node_modules", ".bin", "redocly");

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

function lint(): LintReport {
  const result = spawnSync(REDOCLY, ["lint", SPEC, "--format=json"], {
    cwd: ROOT,
    encoding: "utf8",
    // No usage report and no update check: the test runs offline.
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  if (result.error !== undefined) throw new Error(`redocly not runnable: ${result.error.message}`);
  if (result.status !== 0 && result.stdout === "") throw new Error(`redocly failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as LintReport;
}

/** Every `$ref` value in a parsed document. */
function refsIn(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refsIn);
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === "$ref" && typeof value === "string" ? [value] : refsIn(value),
  );
}

describe("the OpenAPI document", () => {
  it("passes redocly lint with no error and no warning", () => {
    const report = lint();
    const found = report.problems.map(
      (p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? "?"}: ${p.message}`,
    );
    expect(found).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(report.totals.warnings).toBe(0);
  });

  it("is linted with the recommended rules, and every rule switched off or exception says why", () => {
    const config = readFileSync(path.join(ROOT, "redocly.yaml"), "utf8");
    expect(parseYaml(config)).toMatchObject({ extends: ["recommended"] });
    for (const line of config.split("\n").filter((l) => /^\s+[\w-]+:\s*off\b/.test(l))) {
      expect(line, "a rule switched off without a reason").toMatch(/#\s*\S/);
    }
    const ignored = readFileSync(path.join(ROOT, ".redocly.lint-ignore.yaml"), "utf8").split("\n");
    ignored.forEach((line, index) => {
      if (!/^\s+[\w-]+:$/.test(line) || /^\S/.test(line)) return;
      expect(ignored[index + 1] ?? "", `exception ${line.trim()} without a reason`).toMatch(/^\s+#\s*\S/);
    });
  });

  it("refers to whole components only, never into another schema's properties", () => {
    const refs = refsIn(parseYaml(readFileSync(path.join(ROOT, SPEC), "utf8")));
    expect(refs.length).toBeGreaterThan(100);
    expect(refs.filter((ref) => ref.includes("/properties/"))).toEqual([]);
    expect(refs.filter((ref) => !/^#\/components\/\w+\/[\w.-]+$/.test(ref))).toEqual([]);
  });
});
