import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { findCycles, layeringProblems } from "./check-cycles.js";

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

/** A small project in a temporary directory: its own tsconfig and the given files (path → text). */
function fixture(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "layering-"));
  made.push(dir);
  const config = { compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", noEmit: true, types: [] } };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(config));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return path.join(dir, "tsconfig.json");
}

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Layers of a small engine: basics ← orders ← the engine's own files; a gateway and a wallet beside it. */
const LAYERED = {
  "engine/basics/time.ts": "export const DAY = 1;\n",
  "engine/basics/run.ts": 'import { DAY } from "./time.js";\nexport const RUN = DAY;\n',
  "engine/orders/place.ts": 'import { RUN } from "../basics/run.js";\nexport const PLACE = RUN;\n',
  "engine/core.ts": 'import { PLACE } from "./orders/place.js";\nexport const CORE = PLACE;\n',
  "engine/core.testing.ts": 'import { CORE } from "./core.js";\nexport const HARNESS = CORE;\n',
  "engine/orders/place.test.ts": 'import { HARNESS } from "../core.testing.js";\nexport const T = HARNESS;\n',
  "kernel/wire.ts": "export const WIRE = 1;\n",
  "gateway/app.ts": 'import { WIRE } from "../kernel/wire.js";\nexport const APP = WIRE;\n',
  "gateway/app.test.ts": 'import { CORE } from "../engine/core.js";\nexport const T = CORE;\n',
  "wallet/keys.ts": 'import { WIRE } from "../kernel/wire.js";\nexport const KEYS = WIRE;\n',
  "test/harness/stack.ts": 'import { KEYS } from "../../wallet/keys.js";\nexport const STACK = KEYS;\n',
};

describe("layering check", () => {
  it("passes on the project", () => {
    expect(layeringProblems(path.join(ROOT, "tsconfig.json"))).toEqual([]);
  });

  it("passes on a tree whose folders import in one direction (tests may import anything)", () => {
    expect(layeringProblems(fixture(LAYERED))).toEqual([]);
  });

  it("fails on a back-import between folders, although no file cycle exists", () => {
    const config = fixture({
      ...LAYERED,
      "engine/basics/run.ts": 'import { PLACE } from "../orders/place.js";\nexport const RUN = PLACE;\n',
      "engine/orders/place.ts": 'import { DAY } from "../basics/time.js";\nexport const PLACE = DAY;\n',
    });
    expect(findCycles(config)).toEqual([]);
    expect(layeringProblems(config)).toEqual([
      "folder cycle engine/basics/ ↔ engine/orders/: engine/basics/run.ts → engine/orders/place.ts; " +
        "engine/orders/place.ts → engine/basics/time.ts",
    ]);
  });

  it("counts the files directly in engine/ as one folder", () => {
    const config = fixture({
      ...LAYERED,
      "engine/orders/place.ts": 'import { CORE } from "../core.js";\nexport const PLACE = CORE;\n',
      "engine/core.ts": 'import { RUN } from "./basics/run.js";\nexport const CORE = RUN;\n',
      "engine/server.ts": 'import { PLACE } from "./orders/place.js";\nexport const SERVER = PLACE;\n',
    });
    expect(findCycles(config)).toEqual([]);
    expect(layeringProblems(config)).toEqual([
      "folder cycle engine/ ↔ engine/orders/: engine/server.ts → engine/orders/place.ts; " +
        "engine/orders/place.ts → engine/core.ts",
    ]);
  });

  it("fails on an import from the gateway's production code into engine/ or wallet/", () => {
    const config = fixture({
      ...LAYERED,
      "gateway/app.ts":
        'import { CORE } from "../engine/core.js";\nimport { KEYS } from "../wallet/keys.js";\n' +
        "export const APP = CORE + KEYS;\n",
    });
    expect(layeringProblems(config)).toEqual([
      "gateway imports engine/: gateway/app.ts → engine/core.ts",
      "gateway imports wallet/: gateway/app.ts → wallet/keys.ts",
    ]);
  });

  it("fails on an import between the other processes, or from kernel/ into one of them", () => {
    const config = fixture({
      ...LAYERED,
      "wallet/keys.ts": 'import { CORE } from "../engine/core.js";\nexport const KEYS = CORE;\n',
      "engine/server.ts": 'import { APP } from "../gateway/app.js";\nexport const SERVER = APP;\n',
      "kernel/wire.ts": 'import { DAY } from "../engine/basics/time.js";\nexport const WIRE = DAY;\n',
    });
    expect(layeringProblems(config).sort()).toEqual([
      "engine imports gateway/: engine/server.ts → gateway/app.ts",
      "kernel imports engine/: kernel/wire.ts → engine/basics/time.ts",
      "wallet imports engine/: wallet/keys.ts → engine/core.ts",
    ]);
  });

  it("fails on production code importing a test helper, a test harness file or a test", () => {
    const config = fixture({
      ...LAYERED,
      "engine/server.ts":
        'import { HARNESS } from "./core.testing.js";\nimport { STACK } from "../test/harness/stack.js";\n' +
        'import { T } from "./orders/place.test.js";\nexport const SERVER = HARNESS + STACK + T;\n',
    });
    expect(layeringProblems(config)).toEqual([
      "production code imports test code: engine/server.ts → engine/core.testing.ts",
      "production code imports test code: engine/server.ts → test/harness/stack.ts",
      "production code imports test code: engine/server.ts → engine/orders/place.test.ts",
    ]);
  });
});
