import { describe, expect, it } from "vitest";
import { BURST, burstMet, tally } from "./overload-burst.js";

const exact = { 200: BURST.limit, 429: BURST.perKey - BURST.limit };

describe("the burst's target", () => {
  it("is met when every key ends with exactly its limit of 200 and the rest 429, in time", () => {
    expect(burstMet([exact, exact, exact], BURST.withinMs)).toBe(true);
  });

  it("is missed by a late end, a 503 left over, a key short of its limit or a key missing", () => {
    expect(burstMet([exact, exact, exact], BURST.withinMs + 1)).toBe(false);
    expect(burstMet([exact, exact, { 200: BURST.limit, 429: 99, 503: 1 }], 1_000)).toBe(false);
    expect(burstMet([exact, exact, { 200: BURST.limit - 1, 429: 101 }], 1_000)).toBe(false);
    expect(burstMet([exact, exact], 1_000)).toBe(false);
  });

  it("counts statuses", () => {
    expect(tally([200, 429, 200, 0])).toEqual({ 0: 1, 200: 2, 429: 1 });
  });
});
