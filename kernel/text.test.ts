// What free text people read may hold: no control character (C0, DEL, C1) and no bidirectional formatting
// character and no unpaired surrogate, each refused with its own message; every other character, in any script,
// passes. Lengths count code points.
import { describe, expect, it } from "vitest";
import { BIDI_MESSAGE, characterCount, CONTROL_MESSAGE, SURROGATE_MESSAGE, unreadableText } from "./text.js";

const hex = (code: number): string => `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("unreadableText", () => {
  it.each([...range(0x00, 0x1f), 0x7f, ...range(0x80, 0x9f)].map((code) => [hex(code), code]))(
    "refuses the control character %s as a control character",
    (_name, code) => {
      expect(unreadableText(`a${String.fromCodePoint(code)}b`)).toBe(CONTROL_MESSAGE);
    },
  );

  it.each(
    [0x061c, 0x200e, 0x200f, ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)].map((code) => [hex(code), code]),
  )("refuses the bidirectional formatting character %s with its own message", (_name, code) => {
    expect(unreadableText(`invoice${String.fromCodePoint(code)}gpj.exe`)).toBe(BIDI_MESSAGE);
  });

  it.each([
    ["a lone high surrogate", "a\ud800b"],
    ["a lone low surrogate", "a\udc00b"],
    ["a high surrogate at the end", "bot\ud83d"],
    ["a low surrogate at the start", "\ude80bot"],
    ["two high surrogates", "\ud83d\ud83d\ude80"],
  ])("refuses %s as an unpaired surrogate", (_what, text) => {
    expect(unreadableText(text)).toBe(SURROGATE_MESSAGE);
  });

  it.each([
    ["plain ASCII", "my bot"],
    ["Latin-1 letters right after C1", "\u00a0caf\u00e9 \u00ff"],
    ["Arabic and Hebrew (right-to-left by themselves)", "\u0645\u0631\u062d\u0628\u0627 \u05e9\u05dc\u05d5\u05dd"],
    ["CJK and emoji", "\u673a\u5668\u4eba \ud83d\ude80"],
    ["the neighbours of the refused ranges", "\u2010\u2029\u202f\u2065\u206a\u061b\u061d"],
  ])("accepts %s", (_what, text) => {
    expect(unreadableText(text)).toBeUndefined();
  });
});

describe("characterCount", () => {
  it("counts code points: an emoji (a surrogate pair) is one character", () => {
    expect(characterCount("")).toBe(0);
    expect(characterCount("bot")).toBe(3);
    expect(characterCount("\ud83d\ude80".repeat(60))).toBe(60);
    expect(characterCount("\u673a\u5668\u4eba \ud83d\ude80")).toBe(5);
    // Unpaired surrogates (refused as labels) count one each, as iterating the string does.
    for (const text of ["a\ud800b", "\ude80\ud83d", "\ud83d\ud83d\ude80", "x\udc00"]) {
      expect(characterCount(text)).toBe(Array.from(text).length);
    }
  });
});
