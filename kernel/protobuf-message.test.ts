import { describe, expect, it } from "vitest";
import { decodeMessage, encodeMessage, messageCodec } from "./protobuf-message.js";

interface Sample {
  id: number;
  name: string;
  tags: string[];
}

describe("messageCodec", () => {
  it("reads a definition in .proto words and round-trips the message it describes", () => {
    const codec = messageCodec<Sample>("uint32 id = 1; string name = 2; repeated string tags = 3");
    const bytes = encodeMessage(codec, { id: 7, name: "x", tags: ["", "b"] });
    expect([...bytes]).toEqual([0x08, 7, 0x12, 1, 0x78, 0x1a, 0, 0x1a, 1, 0x62]);
    expect(decodeMessage(codec, bytes)).toEqual({ id: 7, name: "x", tags: ["", "b"] });
  });

  it("gives each decoded message a list of its own", () => {
    const codec = messageCodec<Sample>("uint32 id = 1; string name = 2; repeated string tags = 3");
    const first = decodeMessage(codec, Buffer.alloc(0));
    first.tags.push("mine");
    expect(decodeMessage(codec, Buffer.alloc(0))).toEqual({ id: 0, name: "", tags: [] });
  });

  it.each([
    ["a type it does not carry", "double price = 1"],
    ["a field number above 15", "string name = 16"],
    ["field number 0", "string name = 0"],
    ["no number", "string name"],
    ["a name given twice", "string name = 1; string name = 2"],
    ["a number given twice", "string name = 1; string other = 1"],
    ["an empty field", "string name = 1;"],
  ])("refuses %s", (_, definition) => {
    expect(() => messageCodec(definition)).toThrow();
  });
});
