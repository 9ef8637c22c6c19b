import { describe, expect, it } from "vitest";
import { isMarketOpen, type MarketClass } from "./market-hours.js";

// 2026-11-22 is a Sunday; the week runs Sunday 22nd to Saturday 28th.
const at = (iso: string): number => Date.parse(iso);
const justBefore = (iso: string): number => at(iso) - 1;

describe("isMarketOpen", () => {
  it.each([
    "2026-11-21T12:00:00.000Z",
    "2026-11-22T03:00:00.000Z",
    "2026-11-25T22:30:00.000Z",
    "2026-11-27T22:00:00.000Z",
  ])("keeps crypto open at %s", (iso) => {
    expect(isMarketOpen("crypto", at(iso))).toBe(true);
  });

  it.each<[string, number, boolean]>([
    ["Sunday just before 22:00", justBefore("2026-11-22T22:00:00.000Z"), false],
    ["Sunday 22:00", at("2026-11-22T22:00:00.000Z"), true],
    ["Monday 22:30 (no daily break)", at("2026-11-23T22:30:00.000Z"), true],
    ["Wednesday noon", at("2026-11-25T12:00:00.000Z"), true],
    ["Friday just before 22:00", justBefore("2026-11-27T22:00:00.000Z"), true],
    ["Friday 22:00", at("2026-11-27T22:00:00.000Z"), false],
    ["Saturday noon", at("2026-11-28T12:00:00.000Z"), false],
    ["Sunday noon", at("2026-11-22T12:00:00.000Z"), false],
  ])("has forex open on %s: %s", (_label, nowMs, open) => {
    expect(isMarketOpen("forex", nowMs)).toBe(open);
  });

  describe.each<MarketClass>(["commodities", "indices"])("%s", (assetClass) => {
    it.each<[string, number, boolean]>([
      ["Sunday 22:00 (forex already open)", at("2026-11-22T22:00:00.000Z"), false],
      ["Sunday just before 23:00", justBefore("2026-11-22T23:00:00.000Z"), false],
      ["Sunday 23:00", at("2026-11-22T23:00:00.000Z"), true],
      ["Monday just before 22:00", justBefore("2026-11-23T22:00:00.000Z"), true],
      ["Monday 22:00 (daily break)", at("2026-11-23T22:00:00.000Z"), false],
      ["Tuesday just before 23:00", justBefore("2026-11-24T23:00:00.000Z"), false],
      ["Tuesday 23:00", at("2026-11-24T23:00:00.000Z"), true],
      ["Wednesday 22:30 (daily break)", at("2026-11-25T22:30:00.000Z"), false],
      ["Thursday just before 22:00", justBefore("2026-11-26T22:00:00.000Z"), true],
      ["Thursday 22:00 (daily break)", at("2026-11-26T22:00:00.000Z"), false],
      ["Thursday 23:00", at("2026-11-26T23:00:00.000Z"), true],
      ["Friday midnight", at("2026-11-27T00:00:00.000Z"), true],
      ["Friday just before 22:00", justBefore("2026-11-27T22:00:00.000Z"), true],
      ["Friday 22:00", at("2026-11-27T22:00:00.000Z"), false],
      ["Friday 23:00 (no session after the weekly close)", at("2026-11-27T23:00:00.000Z"), false],
      ["Saturday noon", at("2026-11-28T12:00:00.000Z"), false],
      ["Saturday just before midnight", justBefore("2026-11-29T00:00:00.000Z"), false],
    ])("is open on %s: %s", (_label, nowMs, open) => {
      expect(isMarketOpen(assetClass, nowMs)).toBe(open);
    });
  });

  it("handles instants before 1970 the same way", () => {
    // 1969-12-28 was a Sunday.
    expect(isMarketOpen("forex", at("1969-12-28T22:00:00.000Z"))).toBe(true);
    expect(isMarketOpen("forex", justBefore("1969-12-28T22:00:00.000Z"))).toBe(false);
  });
});
