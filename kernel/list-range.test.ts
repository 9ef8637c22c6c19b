// The list-range rules the gateway and the engine share: each refusal's path and message, and what is read.
import { describe, expect, it } from "vitest";
import { checkListAfterId, checkListBound, checkListLimit, listRangeIssues } from "./list-range.js";

describe("list range rules", () => {
  it("reads from and to as ISO 8601 date-times with a time zone, and refuses anything else", () => {
    expect(checkListBound("from", "2026-11-25T01:00:00.000+01:00")).toEqual({
      ok: true,
      value: Date.parse("2026-11-25T00:00:00Z"),
    });
    for (const text of ["yesterday", "2026-11-25", "2026-02-30T00:00:00Z", "2026-11-25T00:00:00+24:00"]) {
      expect(checkListBound("to", text)).toEqual({
        ok: false,
        issue: { path: "to", message: "must be an ISO 8601 date-time with a time zone" },
      });
    }
  });

  it("reads a limit of at least 1 and clamps it to 1000", () => {
    expect(checkListLimit("10")).toEqual({ ok: true, value: 10 });
    expect(checkListLimit(5000)).toEqual({ ok: true, value: 1000 });
    expect(checkListLimit("99999999999999999999")).toEqual({ ok: true, value: 1000 });
    for (const value of ["ten", "-1", "1.5", 2.5]) {
      expect(checkListLimit(value)).toEqual({
        ok: false,
        issue: { path: "limit", message: "must be a positive integer" },
      });
    }
    expect(checkListLimit("0")).toEqual({ ok: false, issue: { path: "limit", message: "must be at least 1" } });
  });

  it("reads after_id as a UUID in lower case", () => {
    expect(checkListAfterId("0A0A0A0A-0000-4000-8000-00000000000F")).toEqual({
      ok: true,
      value: "0a0a0a0a-0000-4000-8000-00000000000f",
    });
    expect(checkListAfterId("fill-1")).toEqual({ ok: false, issue: { path: "after_id", message: "must be a UUID" } });
  });

  it("refuses from after to, and after_id without from", () => {
    expect(listRangeIssues({ from: 2, to: 1, afterId: null })).toEqual([
      { path: "from", message: "must not be after to" },
    ]);
    expect(listRangeIssues({ from: null, to: 1, afterId: "a" })).toEqual([
      { path: "after_id", message: "needs from: the last row's time" },
    ]);
    expect(listRangeIssues({ from: 1, to: 1, afterId: "a" })).toEqual([]);
  });
});
