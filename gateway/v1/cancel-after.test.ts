// The cancel-after body (docs/risk.md, "Cancel-after"): a whole number of ms, 0 or 1,000..86,400,000, nothing
// else, refused here with the engine's own messages before it could be truncated into the uint32 field.
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../kernel/errors.js";
import { parse } from "../http/validation.js";
import { CancelAfterBody } from "./trading-ops.js";

function issues(body: unknown): unknown {
  try {
    parse(CancelAfterBody, body);
  } catch (error) {
    if (error instanceof ServiceError) return error.fields.issues;
    throw error;
  }
  return [];
}

const BOUNDS = "must be 0 (disarm) or between 1000 and 86400000 ms (24 h)";

describe("the cancel-after body", () => {
  it.each([0, 1_000, 60_000, 86_400_000])("takes %i", (timeoutMs) => {
    expect(parse(CancelAfterBody, { timeout_ms: timeoutMs })).toEqual({ timeout_ms: timeoutMs });
  });

  it.each<[unknown, string]>([
    [999, BOUNDS],
    [86_400_001, BOUNDS],
    [-1, BOUNDS],
    [4_294_968_296, BOUNDS],
    [1.5, "must be a whole number of milliseconds"],
    ["60000", "must be a whole number of milliseconds"],
    [null, "must be a whole number of milliseconds"],
  ])("refuses %j: %s", (timeoutMs, message) => {
    expect(issues({ timeout_ms: timeoutMs })).toEqual([{ path: "timeout_ms", message }]);
  });

  it("requires timeout_ms and refuses unknown fields", () => {
    expect(issues({})).toEqual([{ path: "timeout_ms", message: "required" }]);
    expect(issues({ timeout_ms: 1_000, symbol: "BTC-USD" })).toEqual([{ path: "symbol", message: "unknown field" }]);
  });
});
