// Admission before work (docs/overload.md): every /v1 request passes here before anything else runs for it
// (no authentication, no rate-limit charge, no gRPC call). It is admitted while the requests in flight stay under
// a bound found from their latency (gateway/http/gradient-limit.ts) and its key's own requests in flight stay under
// a per-key bound; otherwise it waits in a short queue, served fairly across keys (round robin, one request per
// key per turn; requests that reduce risk first), and past the queue's deadline (long for a burst at an idle
// gateway, short once the queue stands), or when the queue is full, it is answered `503 overloaded` with
// Retry-After at once. A shed request did no work and is charged nothing.
import { GradientLimit, type GradientLimitOptions } from "./gradient-limit.js";

export type ShedReason = "queue_full" | "key_queue_full" | "queue_timeout";

export interface AdmissionOptions {
  limit: GradientLimitOptions;
  /** Requests of one key in flight at once. */
  perKey: number;
  /** Requests waiting for admission, all keys together. */
  maxQueue: number;
  /** Requests of one key waiting for admission. */
  perKeyQueue: number;
  /** Longest a request waits for admission before it is shed, while the queue stands (see `burstTimeoutMs`). */
  queueTimeoutMs: number;
  /**
   * Longest a request waits when the queue was empty within the last STANDING_QUEUE_MS: a burst arriving at
   * an idle gateway waits to be served; only a queue that stands (overload, not a burst) sheds after
   * `queueTimeoutMs` (the CoDel idea, as in Facebook's adaptive queue timeouts). Default: `queueTimeoutMs`.
   */
  burstTimeoutMs?: number;
  /** The clock latencies are measured with (ms); default performance.now. */
  now?: () => number;
}

/** An admitted request's slot: released exactly once, with the request's latency when it was answered. */
export interface Permit {
  release(answered: boolean): void;
}

type Outcome = (permit: Permit | ShedReason) => void;

/** A queue not empty for this long stands: new waiters get the short timeout. */
export const STANDING_QUEUE_MS = 100;

/** Slots of the bound each active key must get from an even split before any key counts as light. */
export const LIGHT_SHARE_MIN = 2;

interface Waiter {
  key: string;
  outcome: Outcome;
  timer: NodeJS.Timeout | undefined;
}

interface KeyState {
  inFlight: number;
  waiting: Waiter[];
}

export class Admission {
  private readonly gradient: GradientLimit;
  private readonly now: () => number;
  private inFlightCount = 0;
  private queued = 0;
  /** When the queue was last seen empty (`now()`). */
  private emptyAt = Number.NEGATIVE_INFINITY;
  /** Keys with requests in flight or waiting; a key with waiters is in `turns` too. */
  private readonly keys = new Map<string, KeyState>();
  /** Keys whose waiters are served next, in round-robin order (Map order; a served key moves to the end). */
  private readonly turns = new Map<string, KeyState>();
  /** Waiting requests that reduce risk (cancels, closes): served before the others, whatever their key. */
  private readonly critical: Waiter[] = [];

  constructor(private readonly options: AdmissionOptions) {
    for (const name of ["perKey", "maxQueue", "perKeyQueue", "queueTimeoutMs", "burstTimeoutMs"] as const) {
      const value = options[name] ?? 0;
      if (!Number.isSafeInteger(value) || value < (name === "perKey" ? 1 : 0)) {
        throw new RangeError(`admission ${name} must be a non-negative integer, got ${value}`);
      }
    }
    this.gradient = new GradientLimit(options.limit);
    this.now = options.now ?? (() => performance.now());
  }

  get limit(): number {
    return this.gradient.limit;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  get waiting(): number {
    return this.queued;
  }

  /**
   * Admits a request of `key` (the presented X-API-Key; "" without one): `outcome` gets a permit (at once when
   * there is room, else once its turn comes) or the reason it was shed. `critical` requests (they reduce risk)
   * wait in the first queue and are not held to the per-key bound.
   */
  admit(key: string, critical: boolean, outcome: Outcome): void {
    const state = this.stateOf(key);
    const room = this.inFlightCount < this.gradient.limit;
    if (
      room &&
      (critical ? this.critical.length === 0 : state.waiting.length === 0 && state.inFlight < this.options.perKey)
    ) {
      outcome(this.start(key, state));
      return;
    }
    const light = this.isLight(state);
    let full = this.queued >= this.options.maxQueue;
    if (full && (critical || light)) full = !this.evictFromHeaviest(state);
    if (full || (!critical && state.waiting.length >= this.options.perKeyQueue)) {
      this.forgetIfIdle(key, state);
      outcome(full ? "queue_full" : "key_queue_full");
      return;
    }
    const now = this.now();
    if (this.queued === 0) this.emptyAt = now;
    const standing = now - this.emptyAt > STANDING_QUEUE_MS;
    const timeoutMs =
      standing && !light ? this.options.queueTimeoutMs : (this.options.burstTimeoutMs ?? this.options.queueTimeoutMs);
    const waiter: Waiter = { key, outcome, timer: undefined };
    waiter.timer = setTimeout(() => {
      this.expire(waiter, critical);
    }, timeoutMs);
    this.queued += 1;
    if (critical) {
      this.critical.push(waiter);
    } else {
      state.waiting.push(waiter);
      if (!this.turns.has(key)) this.turns.set(key, state);
    }
  }

  private stateOf(key: string): KeyState {
    let state = this.keys.get(key);
    if (state === undefined) {
      state = { inFlight: 0, waiting: [] };
      this.keys.set(key, state);
    }
    return state;
  }

  /**
   * Whether a key uses under half of an even share of the bound: its requests in flight and waiting, against the
   * bound split over every key with requests in flight or waiting, when that split gives each key at least
   * LIGHT_SHARE_MIN. Such a key is not the cause of the queue: under a standing queue it keeps the long deadline,
   * and a full queue makes room for it by shedding the newest waiter of the heaviest key (docs/overload.md).
   * With more active keys than that (a flood from many keys), no key is light and every key is treated alike.
   */
  private isLight(state: KeyState): boolean {
    const share = this.gradient.limit / Math.max(1, this.keys.size);
    return share >= LIGHT_SHARE_MIN && (state.inFlight + state.waiting.length) * 2 < share;
  }

  /** Sheds the newest waiter of the key with the most requests in flight and waiting, if it uses more than `than`. */
  private evictFromHeaviest(than: KeyState): boolean {
    let heaviest: [string, KeyState] | undefined;
    const usage = (s: KeyState): number => s.inFlight + s.waiting.length;
    for (const entry of this.turns)
      if (heaviest === undefined || usage(entry[1]) > usage(heaviest[1])) heaviest = entry;
    if (heaviest === undefined || usage(heaviest[1]) <= usage(than)) return false;
    const [key, state] = heaviest;
    const waiter = state.waiting.pop();
    if (waiter === undefined) return false;
    clearTimeout(waiter.timer);
    this.left();
    if (state.waiting.length === 0) this.turns.delete(key);
    waiter.outcome("queue_full");
    return true;
  }

  private forgetIfIdle(key: string, state: KeyState): void {
    if (state.inFlight === 0 && state.waiting.length === 0) this.keys.delete(key);
  }

  private start(key: string, state: KeyState): Permit {
    this.inFlightCount += 1;
    state.inFlight += 1;
    const startedAt = this.now();
    const inFlightAtStart = this.inFlightCount;
    let released = false;
    return {
      release: (answered) => {
        if (released) return;
        released = true;
        this.inFlightCount -= 1;
        state.inFlight -= 1;
        if (answered) this.gradient.sample(this.now() - startedAt, inFlightAtStart);
        this.forgetIfIdle(key, state);
        this.dispatch();
      },
    };
  }

  private expire(waiter: Waiter, critical: boolean): void {
    const queue = critical ? this.critical : this.keys.get(waiter.key)?.waiting;
    const index = queue?.indexOf(waiter) ?? -1;
    if (queue === undefined || index < 0) return;
    queue.splice(index, 1);
    this.left();
    const state = this.keys.get(waiter.key);
    if (state !== undefined) {
      if (state.waiting.length === 0) this.turns.delete(waiter.key);
      this.forgetIfIdle(waiter.key, state);
    }
    waiter.outcome("queue_timeout");
  }

  /** One waiter left the queue (admitted or shed); an emptied queue is noted. */
  private left(): void {
    this.queued -= 1;
    if (this.queued === 0) this.emptyAt = this.now();
  }

  /** Admits waiting requests while there is room: critical ones first, then one per key in turn. */
  private dispatch(): void {
    while (this.inFlightCount < this.gradient.limit) {
      const waiter = this.critical.shift() ?? this.nextInTurn();
      if (waiter === undefined) return;
      clearTimeout(waiter.timer);
      this.left();
      waiter.outcome(this.start(waiter.key, this.stateOf(waiter.key)));
    }
  }

  /** The head of the first key in turn that is under its per-key bound; that key's turn moves to the end. */
  private nextInTurn(): Waiter | undefined {
    for (const [key, state] of this.turns) {
      if (state.inFlight >= this.options.perKey) continue;
      const waiter = state.waiting.shift();
      this.turns.delete(key);
      if (state.waiting.length > 0) this.turns.set(key, state);
      if (waiter !== undefined) return waiter;
    }
    return undefined;
  }
}
