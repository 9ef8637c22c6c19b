// The gateway's hold of calls to a partition in hand-over (docs/scale-out.md, "Hand-over"): once an engine
// showed it hands its partitions over (it refused a call as not serving, or the router saw every target of an
// entry that served lately refuse or be unreachable), a call it provably did not run waits,
// bounded in time (HANDOVER_HOLD_MS) and in number (HANDOVER_HOLD_MAX), and is tried again, on the partition's
// targets in turn, until one serves it; past either bound it is 503 engine_unavailable with Retry-After, as
// without a hold. The router (gateway/engine-router.ts) decides which calls may be held.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";

export interface HoldSettings {
  /** Longest a call is held (ms); 0 holds nothing. */
  holdMs: number;
  /** Most calls held at once; a call past it is answered at once. */
  maxHeld: number;
  /** Monotonic clock in ms; performance.now by default. */
  now?: () => number;
  /** Waits `ms` between tries; a timer by default. */
  sleep?: (ms: number) => Promise<void>;
  metrics?: HoldMetrics;
}

/** How a held call ended. */
export type HoldOutcome = "sent" | "expired" | "full";

export interface HoldMetrics {
  /** A call left the hold: `seconds` held (0 for one refused because the hold was full). */
  ended(outcome: HoldOutcome, seconds: number): void;
  /** Calls held right now. */
  held(count: number): void;
}

/** The first pause between tries of a held call; each next one doubles, up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 25;
const RETRY_MAX_MS = 250;

const timer = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** One call in the hold: `wait` pauses before its next try, false once its time is up. */
export interface HeldCall {
  wait(): Promise<boolean>;
  /** The call reached an engine that served it (or answered it with any other verdict). */
  sent(): void;
}

export class HandoverHold {
  private count = 0;
  /** Per engine index, when its last sign of a hand-over stops counting (ms, this clock). */
  private readonly handovers = new Map<number, number>();
  /** Per engine index, when a target last served one of its calls (ms, this clock). */
  private readonly lastServed = new Map<number, number>();
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly settings: HoldSettings) {
    this.now = settings.now ?? (() => performance.now());
    this.sleep = settings.sleep ?? timer;
  }

  /** Calls held right now. */
  get held(): number {
    return this.count;
  }

  /** Engine `index` shows it hands over (it refused a call as not serving): its calls are held for a while. */
  begin(index: number): void {
    this.handovers.set(index, this.now() + this.settings.holdMs);
  }

  /** Whether engine `index` showed a hand-over within the hold's time. */
  handingOver(index: number): boolean {
    return (this.handovers.get(index) ?? -Infinity) > this.now();
  }

  /** A target of engine `index` served a call. */
  served(index: number): void {
    this.lastServed.set(index, this.now());
  }

  /** Whether a target of engine `index` served a call within the hold's time. */
  servedLately(index: number): boolean {
    return (this.lastServed.get(index) ?? -Infinity) + this.settings.holdMs > this.now();
  }

  /** Takes a call into the hold; undefined when nothing is held or the hold is full (answer it at once). */
  enter(): HeldCall | undefined {
    const { holdMs, maxHeld, metrics } = this.settings;
    if (holdMs <= 0) return undefined;
    if (this.count >= maxHeld) {
      metrics?.ended("full", 0);
      return undefined;
    }
    this.count++;
    metrics?.held(this.count);
    const started = this.now();
    let pause = RETRY_FIRST_MS;
    let done = false;
    const leave = (outcome: HoldOutcome): void => {
      if (done) return;
      done = true;
      this.count--;
      metrics?.held(this.count);
      metrics?.ended(outcome, (this.now() - started) / 1000);
    };
    return {
      wait: async () => {
        const left = started + holdMs - this.now();
        if (left <= 0) {
          leave("expired");
          return false;
        }
        await this.sleep(Math.min(pause, left));
        pause = Math.min(pause * 2, RETRY_MAX_MS);
        return true;
      },
      sent: () => {
        leave("sent");
      },
    };
  }
}

/**
 * `gateway_engine_held_calls_total{outcome}` (sent to the owner after a hold, expired past HANDOVER_HOLD_MS,
 * or refused because HANDOVER_HOLD_MAX calls were held), `gateway_engine_hold_seconds` (how long each waited)
 * and `gateway_engine_held_calls` (held right now).
 */
export function holdMetrics(registry: Registry): HoldMetrics {
  const registers = [registry];
  const ended = new Counter({
    name: "gateway_engine_held_calls_total",
    help: "Engine calls held while their partition was handed over, by how the hold ended (sent, expired, full).",
    labelNames: ["outcome"],
    registers,
  });
  for (const outcome of ["sent", "expired", "full"]) ended.inc({ outcome }, 0);
  const seconds = new Histogram({
    name: "gateway_engine_hold_seconds",
    help: "Seconds an engine call was held while its partition was handed over.",
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
    registers,
  });
  const held = new Gauge({
    name: "gateway_engine_held_calls",
    help: "Engine calls held right now while their partition is handed over.",
    registers,
  });
  return {
    ended(outcome, took) {
      ended.inc({ outcome });
      if (outcome !== "full") seconds.observe(took);
    },
    held(count) {
      held.set(count);
    },
  };
}
