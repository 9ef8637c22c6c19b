import { describe, expect, it } from "vitest";
import { repeatedKeys } from "./json-keys.js";

describe("repeatedKeys", () => {
  it("finds nothing in an object whose keys are each written once", () => {
    expect(repeatedKeys('{"level":40,"service":"gateway","upstream":"engine","msg":"engine unavailable"}')).toEqual([]);
  });

  it("names a top-level key written twice, which JSON.parse would keep the last of", () => {
    const line = '{"level":40,"service":"gateway","code":"engine_unavailable","service":"engine"}';
    expect(JSON.parse(line)).toMatchObject({ service: "engine" });
    expect(repeatedKeys(line)).toEqual([{ path: "", key: "service" }]);
  });

  it("names a key repeated inside a nested object or an array's object, with its path", () => {
    expect(repeatedKeys('{"err":{"type":"Error","cause":{"a":1,"a":2}},"list":[{"b":1},{"b":1,"b":2}]}')).toEqual([
      { path: "err.cause", key: "a" },
      { path: "list[1]", key: "b" },
    ]);
  });

  it("does not count the same key in sibling objects, or a key's name inside a string value", () => {
    expect(repeatedKeys('{"a":{"x":1},"b":{"x":2},"msg":"\\"a\\":1,\\"a\\":2"}')).toEqual([]);
  });

  it("compares keys as decoded, so an escaped spelling of a key is the same key", () => {
    expect(repeatedKeys('{"service":1,"serv\\u0069ce":2}')).toEqual([{ path: "", key: "service" }]);
  });

  it("reads every kind of value: numbers, literals, empty objects and arrays, whitespace", () => {
    const json = ' { "n" : -1.5e3 , "t":true,"f":false,"z":null,"o":{},"a":[ ],"s":"\\\\" , "n" : 0 } ';
    expect(repeatedKeys(json)).toEqual([{ path: "", key: "n" }]);
  });

  it.each(["", "{", '{"a":1,}', '{"a" 1}', "[1 2]", '{"a":1} x', '{"a":tru}', '"open'])(
    "refuses text that is not JSON: %j",
    (text) => {
      expect(() => repeatedKeys(text)).toThrow(SyntaxError);
    },
  );
});
