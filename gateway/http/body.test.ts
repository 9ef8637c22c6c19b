// bodyOf (gateway/http/body.ts): the JSON body, refused when absent or when a string in it holds an unpaired
// surrogate (the gRPC encoding behind the gateway would store U+FFFD instead), with the path of that string.
import type { Request } from "express";
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../kernel/errors.js";
import { SURROGATE_MESSAGE } from "../../kernel/text.js";
import { bodyOf } from "./body.js";

const requestWith = (body: unknown): Request => ({ body }) as unknown as Request;

function issuesOf(body: unknown): unknown {
  try {
    bodyOf(requestWith(body));
    return "accepted";
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return error.fields.issues;
  }
}

describe("bodyOf", () => {
  it("refuses a request without a JSON body", () => {
    expect(issuesOf(undefined)).toEqual([
      { path: "", message: "expected a JSON object body (Content-Type: application/json)" },
    ]);
  });

  it.each<[string, unknown, string]>([
    ["a label", { label: "a\ud800b", permissions: ["READ_ONLY"] }, "label"],
    ["a nested value", { orders: [{ symbol: "BTC-USD" }, { client_id: "x\udc00" }] }, "orders.1.client_id"],
    ["a key", { ["k\ud83d"]: 1 }, "k\ud83d"],
    ["a top-level string", "\ud800", ""],
  ])("refuses %s holding an unpaired surrogate, naming where", (_what, body, path) => {
    expect(issuesOf(body)).toEqual([{ path, message: SURROGATE_MESSAGE }]);
  });

  it("accepts text in any script, emoji (surrogate pairs) included", () => {
    const body = {
      label: "bot \u673a\u5668\u4eba \ud83d\ude80",
      tags: ["\u05e9\u05dc\u05d5\u05dd"],
      n: 1,
      ok: true,
      none: null,
    };
    expect(bodyOf(requestWith(body))).toBe(body);
  });
});
