// jsonErrorOffset: where a text stops being JSON, found without JSON.parse's message (which quotes the text).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonErrorOffset, lineAndColumn } from "./json-position.js";

describe("jsonErrorOffset", () => {
  it.each<[string, number]>([
    ['{"a": secret}', 6],
    ["{'a': 1}", 1],
    ['{"a": 1,}', 8],
    ['{"a": 1} x', 9],
    ['{"a": "open', 11],
    ['{"a": "tab\there"}', 10],
    ['{"a": "\\x"}', 7],
    ["[1, 2 3]", 6],
    ["01", 1],
    ["", 0],
    ['{"a" 1}', 5],
    ["[tru]", 1],
  ])("finds the fault of %j at %d", (text, offset) => {
    expect(jsonErrorOffset(text)).toBe(offset);
  });

  it("answers -1 for any text JSON.parse reads", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 2), (value, indent) => {
        expect(jsonErrorOffset(JSON.stringify(value, null, indent))).toBe(-1);
      }),
    );
    expect(jsonErrorOffset(' { "a" : [ 1.5e+3 , -0 , true , null , "\\u00e9\\n" ] } ')).toBe(-1);
  });

  it("answers a fault for any text JSON.parse refuses, and none for one it reads", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12, unit: fc.constantFrom(...Array.from('{}[]",:01-e.tn\\ a')) }), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(jsonErrorOffset(text) === -1).toBe(valid);
      }),
      { numRuns: 2_000 },
    );
  });

  it("walks 100,000 open brackets without overflowing the stack", () => {
    expect(jsonErrorOffset("[".repeat(100_000))).toBe(100_000);
  });
});

describe("lineAndColumn", () => {
  it("counts from 1", () => {
    expect(lineAndColumn("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });
});
