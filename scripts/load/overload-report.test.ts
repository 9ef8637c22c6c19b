import { describe, expect, it } from "vitest";
import type { Outcome, StepPlan } from "./overload-plan.js";
import { formatOverload, summarizeStep, type StepRow } from "./overload-report.js";

const plan: StepPlan = { multiplier: 2, offeredPerSecond: 10, floodKeys: 1, floodPerKeyPerMinute: 480 };
const generator = { cpuUsPerRequest: 50, cpuShareOfCore: 0.1, peakOutstanding: 3 };

const row = (outcome: Outcome, latency: number, over: Partial<StepRow> = {}): StepRow => ({
  due: 0,
  sent: 1,
  end: outcome === "timeout" || outcome === "socket" || outcome === "overflow" ? NaN : latency,
  outcome,
  label: outcome,
  wellBehaved: false,
  ...over,
});

describe("summarizeStep", () => {
  it("counts goodput over the step's length against the capacity, and overflow apart from what was sent", () => {
    const rows = [
      ...Array.from({ length: 8 }, () => row("ok", 5)),
      row("shed", 2),
      row("overflow", NaN, { sent: NaN }),
    ];
    const s = summarizeStep(plan, 2000, 5, rows, generator);
    expect(s).toMatchObject({ due: 10, overflow: 1, sentPerSecond: 4.5, goodputPerSecond: 4, goodputShare: 0.8 });
  });

  it("counts as goodput only the 2xx answered before the step's end", () => {
    const rows = [row("ok", 999), row("ok", 1000), row("ok", 4000)];
    expect(summarizeStep(plan, 1000, 2, rows, generator)).toMatchObject({ goodputPerSecond: 1, goodputShare: 0.5 });
  });

  it("keeps the p99 of answers that are not 503 apart from the p99 of shed ones, and other 503s apart from both", () => {
    const rows = [
      row("ok", 10),
      row("refused", 20),
      row("rate_limited", 30),
      row("internal", 40),
      row("shed", 3),
      row("shed", 4),
      row("unavailable", 1500, { label: "503 engine_unavailable" }),
      row("timeout", NaN),
    ];
    const s = summarizeStep(plan, 1000, 10, rows, generator);
    expect(s).toMatchObject({ answered: 4, answeredP99Ms: 40, shed: 2, shedP99Ms: 4, unavailable: 1, internal: 1 });
    expect(s).toMatchObject({ rateLimited: 1, refused: 1, noAnswer: 1 });
    expect(s.counts).toMatchObject({ "503 engine_unavailable": 1, timeout: 1, shed: 2 });
  });

  it("gives the well-behaved key its own p99, an unanswered request counting as infinitely late", () => {
    const wb = { wellBehaved: true };
    const answered = summarizeStep(plan, 1000, 10, [row("ok", 7, wb), row("shed", 2, wb), row("ok", 900)], generator);
    expect(answered.wellBehaved).toEqual({ due: 2, ok: 1, p99Ms: 7, rateLimited: 0, shed: 1 });
    const lost = summarizeStep(plan, 1000, 10, [row("ok", 7, wb), row("socket", NaN, wb)], generator);
    expect(lost.wellBehaved.p99Ms).toBe(Infinity);
  });

  it("prints one line per step and every verdict, met or missed", () => {
    const s = summarizeStep(plan, 1000, 10, [row("ok", 5)], generator);
    const text = formatOverload(
      "title",
      [s],
      [
        { target: "a", value: "1", met: true },
        { target: "b", value: "2", met: false },
      ],
    );
    expect(text).toContain("2×");
    expect(text).toMatch(/^met +a: 1$/m);
    expect(text).toMatch(/^MISSED +b: 2$/m);
  });
});
