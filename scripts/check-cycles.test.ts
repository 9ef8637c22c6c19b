import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { findCycles } from "./check-cycles.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

describe("import cycle check", () => {
  it("finds the cycle in the fixture", () => {
    expect(findCycles(path.join(ROOT, "test/fixtures/cycle/tsconfig.json"))).toEqual([
      ["test/fixtures/cycle/a.ts", "test/fixtures/cycle/b.ts"],
    ]);
  });

  it("finds none in the project", () => {
    expect(findCycles(path.join(ROOT, "tsconfig.json"))).toEqual([]);
  });
});
