// A label-less Prometheus histogram for per-call hot paths. prom-client's Histogram.observe allocates a
// label/value pair, validates and hashes the (empty) label set and looks its buckets up by the bound's
// string form on every observation; this one finds the bucket in a small array and adds to two numbers.
// It registers in a prom-client Registry and exposes exactly what a prom-client Histogram with the same
// name, help and buckets would (kernel/fast-histogram.test.ts compares the two). A `BucketCounter` counts
// into the same buckets where no registry lives (a worker thread); its plain-data counts are `merge`d here.
import type { Histogram, Registry } from "prom-client";

export interface FastHistogramConfig {
  name: string;
  help: string;
  /** Upper bounds, ascending; +Inf is implicit. */
  buckets: readonly number[];
  registers: readonly Registry[];
}

interface Sample {
  value: number;
  labels: Record<string, string | number>;
  /** The label set of a labelled metric's child (prom-client prints them after `labels`). */
  sharedLabels?: Readonly<Record<string, string>>;
  metricName: string;
  /** prom-client's histogram buckets carry `exemplar: null` (no exemplars); kept for identical JSON. */
  exemplar?: null;
}

/** A histogram's observations as plain data (structured-clonable), for `merge`. */
export interface HistogramCounts {
  /** Per-bucket counts (not cumulative), one per bound and a last one for values above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

function ascending(name: string, buckets: readonly number[]): Float64Array {
  const bounds = Float64Array.from(buckets);
  for (let i = 1; i < bounds.length; i++) {
    if (!((bounds[i] ?? 0) > (bounds[i - 1] ?? 0))) throw new Error(`${name}: buckets must ascend`);
  }
  return bounds;
}

function addCounts(name: string, into: Float64Array, from: HistogramCounts): void {
  if (from.counts.length !== into.length) {
    throw new Error(`${name}: ${from.counts.length} bucket counts merged into ${into.length} buckets`);
  }
  for (let i = 0; i < into.length; i++) into[i] = (into[i] ?? 0) + (from.counts[i] ?? 0);
}

/** The slot a value counts in: the first bound it does not exceed, or the last slot (above every bound). */
function bucketOf(bounds: Float64Array, value: number): number {
  if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
  let i = 0;
  while (i < bounds.length && value > (bounds[i] ?? 0)) i++;
  return i;
}

/**
 * Counts observations into a histogram's buckets without a registry, e.g. in a worker thread that ships
 * `take()` to the thread holding the FastHistogram with the same buckets.
 */
export class BucketCounter {
  private readonly bounds: Float64Array;
  private counts: number[];
  private sum = 0;
  private count = 0;

  constructor(buckets: readonly number[]) {
    this.bounds = ascending("BucketCounter", buckets);
    this.counts = new Array<number>(this.bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    const i = bucketOf(this.bounds, value);
    this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.sum += value;
    this.count += 1;
  }

  /** The observations since the last call, then starts over. */
  take(): HistogramCounts {
    const taken = { counts: this.counts, sum: this.sum, count: this.count };
    this.counts = new Array<number>(this.bounds.length + 1).fill(0);
    this.sum = 0;
    this.count = 0;
    return taken;
  }
}

/** The counts of one label set of a FastHistogramVec, and of a FastHistogram (which has one, unlabelled). */
export class FastHistogramChild {
  /** Per-bucket counts (not cumulative); the last slot counts values above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    private readonly bounds: Float64Array,
    readonly labels: Readonly<Record<string, string>>,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const i = bucketOf(this.bounds, value);
    this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.sum += value;
    this.count += 1;
  }

  /** Adds observations counted elsewhere into the same buckets (a BucketCounter's `take()`). */
  merge(counts: HistogramCounts): void {
    addCounts("FastHistogramChild", this.counts, counts);
    this.sum += counts.sum;
    this.count += counts.count;
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

export class FastHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly name: string;
  readonly help: string;
  private readonly bounds: Float64Array;
  private readonly data: FastHistogramChild;

  constructor(config: FastHistogramConfig) {
    this.name = config.name;
    this.help = config.help;
    this.bounds = ascending(config.name, config.buckets);
    this.data = new FastHistogramChild(this.bounds, {});
    // The registry needs only name, type, aggregator, get() and reset(): the shape of its own metrics.
    for (const registry of config.registers) registry.registerMetric(this as unknown as Histogram);
  }

  observe(value: number): void {
    this.data.observe(value);
  }

  /** Adds observations counted elsewhere into the same buckets (a BucketCounter's `take()`). */
  merge(counts: HistogramCounts): void {
    this.data.merge(counts);
  }

  reset(): void {
    this.data.reset();
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const bucket = `${this.name}_bucket`;
    const { counts, sum, count } = this.data;
    const values: Sample[] = [];
    let cumulative = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      cumulative += counts[i] ?? 0;
      values.push({ value: cumulative, labels: { le: this.bounds[i] ?? 0 }, metricName: bucket, exemplar: null });
    }
    values.push(
      { value: count, labels: { le: "+Inf" }, metricName: bucket, exemplar: null },
      { value: sum, labels: {}, metricName: `${this.name}_sum` },
      { value: count, labels: {}, metricName: `${this.name}_count` },
    );
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}

export interface FastHistogramVecConfig<L extends string> extends FastHistogramConfig {
  labelNames: readonly L[];
}

/**
 * A labelled FastHistogram. Callers resolve a child once per label set (`child`, cached) and observe on it;
 * the label values must come from small fixed sets (routes, methods, codes), never ids. Exposes what a
 * prom-client Histogram with the same label sets, in the same first-use order, would.
 */
export class FastHistogramVec<L extends string> {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  private readonly bounds: Float64Array;
  private readonly children = new Map<string, FastHistogramChild>();

  constructor(config: FastHistogramVecConfig<L>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.bounds = ascending(config.name, config.buckets);
    for (const registry of config.registers) registry.registerMetric(this as unknown as Histogram);
  }

  /** The child of one label set (created on first use). */
  child(labels: Readonly<Record<L, string>>): FastHistogramChild {
    let key = "";
    for (const name of this.labelNames) key += `${labels[name]}\u0000`;
    let child = this.children.get(key);
    if (child === undefined) {
      const copy: Record<string, string> = {};
      for (const name of this.labelNames) copy[name] = labels[name];
      child = new FastHistogramChild(this.bounds, copy);
      this.children.set(key, child);
    }
    return child;
  }

  /** Every child, in first-use order. */
  all(): Iterable<FastHistogramChild> {
    return this.children.values();
  }

  reset(): void {
    for (const child of this.children.values()) child.reset();
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const bucket = `${this.name}_bucket`;
    const values: Sample[] = [];
    // prom-client's order: per label set its buckets, +Inf, _sum and _count; the set's labels are "shared".
    for (const child of this.children.values()) {
      const shared = child.labels;
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += child.counts[i] ?? 0;
        values.push({
          value: cumulative,
          labels: { le: this.bounds[i] ?? 0 },
          sharedLabels: shared,
          metricName: bucket,
          exemplar: null,
        });
      }
      values.push(
        { value: child.count, labels: { le: "+Inf" }, sharedLabels: shared, metricName: bucket, exemplar: null },
        { value: child.sum, labels: {}, sharedLabels: shared, metricName: `${this.name}_sum` },
        { value: child.count, labels: {}, sharedLabels: shared, metricName: `${this.name}_count` },
      );
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
