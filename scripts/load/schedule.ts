// When each key sends: every key on a fixed grid (offset + n × interval, evenly spaced at its rate), keys
// staggered evenly over one interval so the sum is smooth, each key active only inside its windows. The times
// are computed from the start of the run, never from the previous send, so a late send or a slow answer
// never shifts the next one (open loop).

export const SCENARIOS = ["per-key", "over-limit", "spike", "soak"] as const;
export type Scenario = (typeof SCENARIOS)[number];

export function isScenario(value: string): value is Scenario {
  return (SCENARIOS as readonly string[]).includes(value);
}

/** A half-open span of run time, ms: [fromMs, untilMs). */
export interface Span {
  fromMs: number;
  untilMs: number;
}

export interface KeyPlan {
  key: number;
  offsetMs: number;
  intervalMs: number;
  /** Where the key is active, sorted and disjoint. */
  active: Span[];
}

export interface ScenarioShape {
  scenario: Scenario;
  keys: number;
  /** Requests per minute of each active key. */
  ratePerMinute: number;
  durationMs: number;
  /** Sent before `durationMs`, at the same rates by the keys active from the start (default 0). */
  warmupMs?: number;
  /** Spike only: the share of keys active outside the spike (at least one key). */
  spikeBase?: number;
}

/** The middle third of the run is the spike. */
export function spikeSpan(durationMs: number): Span {
  return { fromMs: Math.round(durationMs / 3), untilMs: Math.round((2 * durationMs) / 3) };
}

/** How many keys are active outside the spike. */
export function spikeBaseKeys(keys: number, share: number): number {
  return Math.min(keys, Math.max(1, Math.round(keys * share)));
}

export function planKeys(shape: ScenarioShape): KeyPlan[] {
  const { keys, ratePerMinute, durationMs } = shape;
  if (!Number.isInteger(keys) || keys < 1) throw new Error(`keys must be a positive integer, got ${keys}`);
  if (!(ratePerMinute > 0)) throw new Error(`rate must be positive, got ${ratePerMinute}`);
  if (!(durationMs > 0)) throw new Error(`duration must be positive, got ${durationMs}`);
  const intervalMs = 60_000 / ratePerMinute;
  const warmupMs = shape.warmupMs ?? 0;
  if (!(warmupMs >= 0)) throw new Error(`warm-up must not be negative, got ${warmupMs}`);
  const whole: Span = { fromMs: 0, untilMs: warmupMs + durationMs };
  const base = shape.scenario === "spike" ? spikeBaseKeys(keys, shape.spikeBase ?? 0.2) : keys;
  const middle = spikeSpan(durationMs);
  const spike: Span = { fromMs: warmupMs + middle.fromMs, untilMs: warmupMs + middle.untilMs };
  return Array.from({ length: keys }, (_, key) => ({
    key,
    offsetMs: (key * intervalMs) / keys,
    intervalMs,
    active: key < base ? [whole] : [spike],
  }));
}

/** The send times of one key, ascending. */
export function* keyTimes(plan: KeyPlan): Generator<number> {
  for (const span of plan.active) {
    // The first grid point at or after the span's start.
    let n = Math.max(0, Math.ceil((span.fromMs - plan.offsetMs) / plan.intervalMs - 1e-9));
    for (;;) {
      const at = plan.offsetMs + n * plan.intervalMs;
      if (at >= span.untilMs) break;
      if (at >= span.fromMs) yield at;
      n++;
    }
  }
}

export interface Due {
  atMs: number;
  key: number;
  /** The key's own request number, from 0. */
  seq: number;
}

/** Every key's sends merged in time order (ties: lower key first). */
export function* dueTimes(plans: readonly KeyPlan[]): Generator<Due> {
  interface Head {
    key: number;
    atMs: number;
    seq: number;
    rest: Generator<number>;
  }
  const heap: Head[] = [];
  const before = (a: Head, b: Head): boolean => a.atMs < b.atMs || (a.atMs === b.atMs && a.key < b.key);
  const swap = (i: number, j: number): void => {
    const t = heap[i] as Head;
    heap[i] = heap[j] as Head;
    heap[j] = t;
  };
  const up = (start: number): void => {
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as Head, heap[parent] as Head)) return;
      swap(i, parent);
      i = parent;
    }
  };
  const down = (start: number): void => {
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < heap.length && before(heap[l] as Head, heap[best] as Head)) best = l;
      if (r < heap.length && before(heap[r] as Head, heap[best] as Head)) best = r;
      if (best === i) return;
      swap(i, best);
      i = best;
    }
  };
  for (const plan of plans) {
    const rest = keyTimes(plan);
    const first = rest.next();
    if (first.done !== true) {
      heap.push({ key: plan.key, atMs: first.value, seq: 0, rest });
      up(heap.length - 1);
    }
  }
  while (heap.length > 0) {
    const top = heap[0] as Head;
    yield { atMs: top.atMs, key: top.key, seq: top.seq };
    const next = top.rest.next();
    if (next.done === true) {
      const last = heap.pop() as Head;
      if (heap.length > 0) {
        heap[0] = last;
        down(0);
      }
    } else {
      top.atMs = next.value;
      top.seq++;
      down(0);
    }
  }
}

/** How many sends `plans` make in all. */
export function countSends(plans: readonly KeyPlan[]): number {
  let total = 0;
  for (const plan of plans) {
    const times = keyTimes(plan);
    while (times.next().done !== true) total++;
  }
  return total;
}
