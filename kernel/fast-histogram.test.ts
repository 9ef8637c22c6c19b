import { Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { BucketCounter, FastHistogram, FastHistogramVec } from "./fast-histogram.js";

const BUCKETS = [0.000_01, 0.000_05, 0.000_1, 0.000_5, 0.001, 0.005, 0.01, 0.05];

describe("FastHistogram", () => {
  it("exposes exactly what a prom-client Histogram with the same observations exposes", async () => {
    const theirs = new Registry();
    const ours = new Registry();
    for (const registry of [theirs, ours]) registry.setDefaultLabels({ service: "wallet" });
    const reference = new Histogram({ name: "h_seconds", help: "Help text.", buckets: BUCKETS, registers: [theirs] });
    const fast = new FastHistogram({ name: "h_seconds", help: "Help text.", buckets: BUCKETS, registers: [ours] });
    expect(await ours.metrics()).toBe(await theirs.metrics());
    for (const value of [0, 0.000_01, 0.000_010_1, 0.000_3, 0.001, 0.04, 0.05, 0.2, 7]) {
      reference.observe(value);
      fast.observe(value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    // As JSON too (prom-client adds `exemplar: undefined` to its entries, which the round trip drops).
    const json = async (registry: Registry): Promise<unknown> =>
      JSON.parse(JSON.stringify(await registry.getMetricsAsJSON())) as unknown;
    expect(await json(ours)).toEqual(await json(theirs));
    ours.resetMetrics();
    theirs.resetMetrics();
    reference.zero({});
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it("refuses values that are not finite and buckets that do not ascend", () => {
    const fast = new FastHistogram({ name: "x", help: "x", buckets: [1, 2], registers: [] });
    expect(() => {
      fast.observe(Number.NaN);
    }).toThrow(TypeError);
    expect(() => new FastHistogram({ name: "y", help: "y", buckets: [2, 1], registers: [] })).toThrow(/ascend/);
  });
});

describe("FastHistogramVec", () => {
  it("exposes exactly what a labelled prom-client Histogram with the same observations exposes", async () => {
    const theirs = new Registry();
    const ours = new Registry();
    for (const registry of [theirs, ours]) registry.setDefaultLabels({ service: "gateway" });
    const config = { name: "v_seconds", help: "Help.", buckets: BUCKETS, labelNames: ["method", "code"] as const };
    const reference = new Histogram({ ...config, labelNames: [...config.labelNames], registers: [theirs] });
    const fast = new FastHistogramVec({ ...config, registers: [ours] });
    expect(await ours.metrics()).toBe(await theirs.metrics());
    const observations = [
      [{ method: "PlaceOrder", code: "OK" }, 0.002],
      [{ method: "GetAccount", code: "NOT_FOUND" }, 0.000_02],
      [{ method: "PlaceOrder", code: "OK" }, 0.3],
      [{ method: "PlaceOrder", code: "UNAVAILABLE" }, 0.01],
    ] as const;
    for (const [labels, value] of observations) {
      reference.observe(labels, value);
      fast.child(labels).observe(value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it("hands out one child per label set", () => {
    const fast = new FastHistogramVec({ name: "c", help: "c", buckets: [1], labelNames: ["a"], registers: [] });
    expect(fast.child({ a: "x" })).toBe(fast.child({ a: "x" }));
    expect(fast.child({ a: "x" })).not.toBe(fast.child({ a: "y" }));
    expect([...fast.all()].map((c) => c.labels)).toEqual([{ a: "x" }, { a: "y" }]);
  });
});

describe("BucketCounter", () => {
  const values = [0, 0.000_01, 0.000_010_1, 0.000_3, 0.001, 0.04, 0.05, 0.2, 7];

  it("merged into a FastHistogram or a child, exposes what observing there directly does", async () => {
    const direct = new Registry();
    const merged = new Registry();
    const vec = { name: "v_seconds", help: "Help.", buckets: BUCKETS, labelNames: ["outcome"] as const };
    const plain = { name: "h_seconds", help: "Help text.", buckets: BUCKETS };
    const observed = new FastHistogram({ ...plain, registers: [direct] });
    const observedVec = new FastHistogramVec({ ...vec, registers: [direct] });
    const target = new FastHistogram({ ...plain, registers: [merged] });
    const targetVec = new FastHistogramVec({ ...vec, registers: [merged] });
    const counter = new BucketCounter(BUCKETS);
    for (const value of values) {
      observed.observe(value);
      observedVec.child({ outcome: "ok" }).observe(value);
      counter.observe(value);
    }
    const counts = counter.take();
    target.merge(counts);
    targetVec.child({ outcome: "ok" }).merge(counts);
    expect(await merged.metrics()).toBe(await direct.metrics());
    // Taking starts over: a second merge of nothing changes nothing.
    expect(counter.take()).toEqual({ counts: new Array<number>(BUCKETS.length + 1).fill(0), sum: 0, count: 0 });
    target.merge(counter.take());
    expect(await merged.metrics()).toBe(await direct.metrics());
  });

  it("refuses counts of other buckets", () => {
    const fast = new FastHistogram({ name: "x", help: "x", buckets: [1, 2], registers: [] });
    expect(() => {
      fast.merge(new BucketCounter([1, 2, 3]).take());
    }).toThrow(/4 bucket counts merged into 3 buckets/);
  });
});
