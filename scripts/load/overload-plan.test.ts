import { describe, expect, it } from "vitest";
import {
  classifyAnswer,
  errorCode,
  evaluateTargets,
  floodKeysNeeded,
  isOverloadScenario,
  parseOverloadArgs,
  planSteps,
  type StepVerdictInput,
} from "./overload-plan.js";

describe("planSteps", () => {
  it("offers each multiple of the capacity in all, the well-behaved key's 20/s included", () => {
    const steps = planSteps({
      capacityPerSecond: 1000,
      multipliers: [0.5, 1, 2, 4],
      floodKeyRate: 15,
      wellBehavedRate: 20,
    });
    expect(steps.map((s) => s.offeredPerSecond)).toEqual([500, 1000, 2000, 4000]);
    for (const s of steps) expect((s.floodKeys * s.floodPerKeyPerMinute) / 60 + 20).toBeCloseTo(s.offeredPerSecond, 9);
  });

  it("uses as few flood keys as keep each at or below the flood key rate", () => {
    const steps = planSteps({ capacityPerSecond: 1000, multipliers: [0.5, 4], floodKeyRate: 15, wellBehavedRate: 20 });
    // 480/s over 15/s: exactly 32 keys at 15/s; 3,980/s: 266 keys (265.33 rounded up) just under 15/s.
    expect(steps.map((s) => s.floodKeys)).toEqual([32, 266]);
    expect(steps[0]?.floodPerKeyPerMinute).toBeCloseTo(900, 9);
    for (const s of steps) expect(s.floodPerKeyPerMinute).toBeLessThanOrEqual(900 + 1e-9);
    expect(floodKeysNeeded(steps)).toBe(266);
  });

  it("spreads the flood over exactly the given keys when --flood-keys is set, whatever their rate", () => {
    const steps = planSteps({
      capacityPerSecond: 1000,
      multipliers: [0.5, 4],
      floodKeyRate: 15,
      wellBehavedRate: 20,
      floodKeys: 4,
    });
    expect(steps.map((s) => s.floodKeys)).toEqual([4, 4]);
    // 3,980/s of flood over 4 keys: 995/s each, 59,700 a minute.
    expect(steps[1]?.floodPerKeyPerMinute).toBeCloseTo(59_700, 9);
  });

  it("sends no flood when the well-behaved key alone offers the step", () => {
    const [step] = planSteps({ capacityPerSecond: 30, multipliers: [0.5], floodKeyRate: 15, wellBehavedRate: 20 });
    expect(step).toMatchObject({ floodKeys: 0, floodPerKeyPerMinute: 0 });
  });

  it("refuses a capacity that is not positive", () => {
    expect(() => planSteps({ capacityPerSecond: 0, multipliers: [1], floodKeyRate: 15, wellBehavedRate: 20 })).toThrow(
      /capacity/,
    );
  });
});

describe("classifyAnswer", () => {
  it("tells the shed 503 from the other 503 codes, 500 from 429, and refusals from both", () => {
    expect(classifyAnswer(200, undefined)).toEqual({ outcome: "ok", label: "ok" });
    expect(classifyAnswer(201, undefined).outcome).toBe("ok");
    expect(classifyAnswer(503, "overloaded")).toEqual({ outcome: "shed", label: "503 overloaded" });
    expect(classifyAnswer(503, "engine_unavailable")).toEqual({
      outcome: "unavailable",
      label: "503 engine_unavailable",
    });
    expect(classifyAnswer(503, undefined)).toEqual({ outcome: "unavailable", label: "503 (no code)" });
    expect(classifyAnswer(500, "internal_error")).toEqual({ outcome: "internal", label: "500 internal_error" });
    expect(classifyAnswer(429, "rate_limited")).toEqual({ outcome: "rate_limited", label: "429" });
    expect(classifyAnswer(422, "insufficient_margin")).toEqual({
      outcome: "refused",
      label: "422 insufficient_margin",
    });
    expect(classifyAnswer(502, undefined).outcome).toBe("other");
  });

  it("reads the error code of a JSON body, and nothing of any other body", () => {
    expect(errorCode('{"error":"overloaded","retry_after":1}')).toBe("overloaded");
    expect(errorCode('{"error":{"code":"x"}}')).toBeUndefined();
    expect(errorCode("Service Unavailable")).toBeUndefined();
    expect(errorCode("")).toBeUndefined();
    expect(errorCode(undefined)).toBeUndefined();
  });
});

const step = (multiplier: number, over: Partial<StepVerdictInput> = {}): StepVerdictInput => ({
  multiplier,
  goodputShare: 0.95,
  shedP99Ms: NaN,
  shed: 0,
  wellBehavedP99Ms: 20,
  internal: 0,
  ...over,
});

describe("evaluateTargets", () => {
  it("meets every target when goodput holds, shedding is fast, the key keeps its p99 and nothing fails", () => {
    const verdicts = evaluateTargets([
      step(0.5),
      step(1),
      step(2, { shed: 10, shedP99Ms: 12 }),
      step(4, { shed: 900, shedP99Ms: 49.9, wellBehavedP99Ms: 40 }),
    ]);
    expect(verdicts).toHaveLength(5);
    expect(verdicts.every((v) => v.met)).toBe(true);
  });

  it("misses goodput below 90% at 2× or 4×, whatever it is at 0.5× and 1×", () => {
    const verdicts = evaluateTargets([
      step(0.5, { goodputShare: 0.5 }),
      step(1),
      step(2),
      step(4, { goodputShare: 0.13 }),
    ]);
    expect(verdicts.map((v) => v.met)).toEqual([true, false, true, true, true]);
    expect(verdicts[1]?.value).toBe("13%");
  });

  it("misses a shed p99 above 50 ms at any step, and takes nothing shed as met", () => {
    expect(evaluateTargets([step(0.5), step(4, { shed: 1, shedP99Ms: 50.1 })])[2]?.met).toBe(false);
    expect(evaluateTargets([step(0.5), step(4)])[2]).toMatchObject({ met: true, value: "nothing shed" });
  });

  it("compares the well-behaved key's p99 at the largest step with the smallest, unanswered counting as infinite", () => {
    expect(evaluateTargets([step(4, { wellBehavedP99Ms: 41 }), step(0.5)])[3]?.met).toBe(false);
    expect(evaluateTargets([step(0.5), step(4, { wellBehavedP99Ms: 40 })])[3]?.met).toBe(true);
    expect(evaluateTargets([step(0.5), step(4, { wellBehavedP99Ms: Infinity })])[3]?.met).toBe(false);
  });

  it("misses on a single 500 at any step", () => {
    const verdicts = evaluateTargets([step(0.5), step(1, { internal: 1 }), step(2), step(4)]);
    expect(verdicts[4]).toMatchObject({ met: false, value: "1 × 500" });
  });
});

describe("parseOverloadArgs", () => {
  it("defaults to the embedded database without Redis, four steps of 15 s and flood keys under their limit", () => {
    const args = parseOverloadArgs(["--scenario", "overload"]);
    expect(args).toMatchObject({
      backend: "pglite",
      redis: false,
      multipliers: [0.5, 1, 2, 4],
      stepMs: 15_000,
      floodKeyRate: 15,
      wellBehavedRate: 20,
      capacity: undefined,
      floodKeys: undefined,
    });
  });

  it("takes a flood from a given number of keys, a positive whole number", () => {
    expect(parseOverloadArgs(["--flood-keys", "4"]).floodKeys).toBe(4);
    expect(() => parseOverloadArgs(["--flood-keys", "0"])).toThrow(/--flood-keys/);
    expect(() => parseOverloadArgs(["--flood-keys", "2.5"])).toThrow(/--flood-keys/);
  });

  it("takes PostgreSQL with Redis unless --no-redis, and a given capacity and steps", () => {
    expect(parseOverloadArgs(["--backend", "postgres"]).redis).toBe(true);
    expect(parseOverloadArgs(["--backend", "postgres", "--no-redis"]).redis).toBe(false);
    expect(parseOverloadArgs(["--redis"]).redis).toBe(true);
    const args = parseOverloadArgs(["--capacity=800", "--multipliers", "1,3", "--step", "5s"]);
    expect(args).toMatchObject({ capacity: 800, multipliers: [1, 3], stepMs: 5000 });
  });

  it("refuses unknown options and bad values", () => {
    expect(() => parseOverloadArgs(["--keys", "3"])).toThrow(/unknown option --keys/);
    expect(() => parseOverloadArgs(["--multipliers", "1,-2"])).toThrow(/multipliers/);
    expect(() => parseOverloadArgs(["--backend", "mysql"])).toThrow(/backend/);
  });

  it("is chosen by --scenario overload in either spelling", () => {
    expect(isOverloadScenario(["--scenario", "overload"])).toBe(true);
    expect(isOverloadScenario(["--keys", "2", "--scenario=overload"])).toBe(true);
    expect(isOverloadScenario(["--scenario", "per-key"])).toBe(false);
  });
});
