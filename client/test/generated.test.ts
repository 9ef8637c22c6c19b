// The generated types are those openapi-typescript makes from docs/openapi.yaml today, every operation of the
// document has a client method, and the client's error codes are the registry's.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ERROR_CODES as REGISTRY } from "../../kernel/errors.js";
import { ERROR_CODES } from "../src/errors.js";
import { GENERATED_PATH, renderTypes, SPEC_PATH } from "../src/generate.js";
import { KeysClient, OPERATIONS, TradingClient } from "../src/index.js";

describe("generated types", () => {
  it("match docs/openapi.yaml (run `npm run generate -w client` when this fails)", async () => {
    expect(readFileSync(GENERATED_PATH, "utf8")).toBe(await renderTypes());
  });

  it("name every error code of the registry", () => {
    const wire = [...new Set(Object.values(REGISTRY).map((entry) => entry.wire))].sort();
    expect([...ERROR_CODES].sort()).toEqual(wire);
  });

  it("give every operation of docs/openapi.yaml a client method", () => {
    const spec = parse(readFileSync(SPEC_PATH, "utf8")) as { paths: Record<string, Record<string, unknown>> };
    const ids = Object.values(spec.paths).flatMap((item) =>
      Object.values(item)
        .map((op) => (op as { operationId?: unknown }).operationId)
        .filter((id): id is string => typeof id === "string"),
    );
    expect(Object.keys(OPERATIONS).sort()).toEqual(ids.sort());
    const classes = { KeysClient: KeysClient.prototype, TradingClient: TradingClient.prototype };
    for (const target of Object.values(OPERATIONS)) {
      const [owner, method] = target.split(".") as [keyof typeof classes, string];
      expect(typeof (classes[owner] as unknown as Record<string, unknown>)[method], target).toBe("function");
    }
  });
});
