// The generated types are those openapi-typescript makes from docs/openapi.yaml today, and the client's error
// codes are the registry's.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_CODES as REGISTRY } from "../../kernel/errors.js";
import { ERROR_CODES } from "../src/errors.js";
import { GENERATED_PATH, renderTypes } from "../src/generate.js";

describe("generated types", () => {
  it("match docs/openapi.yaml (run `npm run generate -w client` when this fails)", async () => {
    expect(readFileSync(GENERATED_PATH, "utf8")).toBe(await renderTypes());
  });

  it("name every error code of the registry", () => {
    const wire = [...new Set(Object.values(REGISTRY).map((entry) => entry.wire))].sort();
    expect([...ERROR_CODES].sort()).toEqual(wire);
  });
});
