// The random steps the reference-model test runs: each step is an intent with random parameters (which
// symbol, how far, how large), resolved against the model's state when it runs, so any subsequence of a
// sequence is still a valid sequence and fast-check can shrink a failure to a minimal one.
import fc from "fast-check";
import type { Side } from "./spec.js";

export type Step =
  /**
   * A price update of symbol `sym`: the mark moves `bp` basis points; index and skew around it; `thin` > 0 gives
   * the book `thin` per mille of its usual depth per level (partial fills).
   */
  | { t: "price"; sym: number; bp: number; indexBp: number; skew: number; thin?: number }
  /** A MARKET order of `size` per mille of the starting balance (×10 for forex); `test`: order/test only. */
  | { t: "market"; sym: number; alt: boolean; side: Side; size: number; test: boolean }
  /** A LIMIT `distBp` from the mark on the passive side, or on the taking side when `cross`. */
  | {
      t: "limit";
      sym: number;
      alt: boolean;
      side: Side;
      size: number;
      distBp: number;
      cross: boolean;
      postOnly: boolean;
      tif?: "GTC" | "IOC" | "FOK";
    }
  /** A reduce-only STOP against a position (the `pick`-th), `distBp` beyond the mark, `part` quarters of it. */
  | { t: "stop"; pick: number; sym: number; alt: boolean; distBp: number; part: number }
  /** Closes the position on (sym, venue): all of it when `part` is 0, else `part` quarters. */
  | { t: "close"; sym: number; alt: boolean; part: number }
  /** An entry STOP (not reduce-only): a BUY `distBp` above the mark, a SELL below; adds exposure when it fills. */
  | { t: "entryStop"; sym: number; alt: boolean; side: Side; size: number; distBp: number }
  /**
   * A bracket: a parent (`entry`: a MARKET, a LIMIT resting `distBp` away, or a crossing LIMIT) of `size`, then
   * a take-profit child (`tpKind`, `tpBp` on the profit side of the entry) and a stop-loss child (`slBp` on the
   * loss side; none when 0), each for `part` quarters of the parent, with time in force `childTif`.
   */
  | {
      t: "bracket";
      sym: number;
      alt: boolean;
      side: Side;
      size: number;
      entry: "market" | "rest" | "cross";
      distBp: number;
      tpKind: "none" | "TAKE_PROFIT" | "LIMIT";
      tpBp: number;
      slBp: number;
      childTif: "GTC" | "IOC" | "FOK";
      part: number;
    }
  /** A MARKET order against the largest position, `extra` quarters larger than it: it closes it and opens the other way. */
  | { t: "flipLargest"; extra: number }
  /** Closes every open position, one close after the other. */
  | { t: "flatten" }
  /** Closes the position with the largest notional: all of it when `part` is 0, else `part` quarters. */
  | { t: "closeLargest"; part: number }
  /** Cancels the `pick`-th working order (an unknown id when there is none). */
  | { t: "cancel"; pick: number }
  | { t: "funding"; cryptoPpm: number; rolloverPpm: number }
  /**
   * A news event `offsetS` seconds from now on target `target` (see TARGETS in the driver); `edge` 1–4 puts
   * it so that now is exactly at (1, 3) or one millisecond outside (2, 4) the start or the end of its window.
   */
  | { t: "news"; offsetS: number; target: number; edge: number }
  | { t: "wait"; ms: number }
  /** The clock moves to `minutes` after the next midnight UTC. */
  | { t: "day"; minutes: number }
  /**
   * The clock moves to exactly the next 00:00:00.000Z, and at that instant: nothing more (`none`), a price update
   * of `sym` (`price`, moved `bp`), the shard's clock (`clock`), or the 00:00 funding tick (`funding`).
   */
  | { t: "midnight"; then: "none" | "price" | "clock" | "funding"; sym: number; bp: number }
  /** The shard's clock: every symbol decided at the current marks. */
  | { t: "clock" }
  /**
   * The clock moves to the next market-hours edge `edge` (see EDGES in the driver) plus `deltaMs` (−1: the last
   * millisecond before it).
   */
  | { t: "session"; edge: number; deltaMs: number }
  /** The clock moves to the next funding boundary plus `offsetMs` (−1: the last millisecond before it). */
  | { t: "boundary"; offsetMs: number }
  /** The funding clock's tick for the latest boundary at or before now. */
  | { t: "tick"; cryptoPpm: number; rolloverPpm: number }
  /**
   * The mark of the largest position's symbol moves so that the day's loss (`rule` 0) or the drawdown used
   * (`rule` 1) is `ppm` parts per million of its limit: an account at the brink, for orders whose own fill ends it
   * and orders whose worst case (every fee, the book's slippage) decides whether they are refused; or (`rule` 2)
   * so that equity passes the profit target by (`ppm` − 900,000) / 100,000 of the daily limit, for a close that
   * leaves the account flat above it. A thin book as in `price`.
   */
  | { t: "brink"; rule: number; ppm: number; thin?: number }
  /**
   * A price update that brings the mark of the `pick`-th working LIMIT or STOP to its price, `beyondBp` basis
   * points past it (a resting order filled or triggered, maybe inside a news freeze); a thin book as in `price`.
   */
  | { t: "reach"; pick: number; beyondBp: number; thin?: number };

const side = fc.constantFrom<Side>("BUY", "SELL");
const sym = fc.integer({ min: 0, max: 3 });
const alt = fc.integer({ min: 0, max: 4 }).map((n) => n === 0);

const price: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("price" as const),
  sym,
  bp: fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: -60, max: 60 }) },
    { weight: 1, arbitrary: fc.integer({ min: -350, max: 350 }) },
  ),
  indexBp: fc.oneof(
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 2, arbitrary: fc.integer({ min: -5, max: 5 }) },
  ),
  skew: fc.constantFrom(-1, 0, 0, 0, 1),
  thin: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 20 }) }),
});

const size = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 2, max: 300 }) },
  { weight: 2, arbitrary: fc.integer({ min: 300, max: 1600 }) },
);

const market: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("market" as const),
  sym,
  alt,
  side,
  size,
  test: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
});

const limit: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("limit" as const),
  sym,
  alt,
  side,
  size,
  distBp: fc.integer({ min: 0, max: 900 }),
  cross: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  postOnly: fc.boolean(),
  tif: fc.constantFrom<"GTC" | "IOC" | "FOK">("GTC", "GTC", "GTC", "GTC", "IOC", "FOK"),
});

const stop: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("stop" as const),
  pick: fc.nat({ max: 7 }),
  sym,
  alt,
  distBp: fc.integer({ min: 10, max: 700 }),
  part: fc.integer({ min: 1, max: 6 }),
});

const close: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("close" as const),
  sym,
  alt,
  part: fc.integer({ min: 0, max: 3 }),
});

const cancel: fc.Arbitrary<Step> = fc.record({ t: fc.constant("cancel" as const), pick: fc.nat({ max: 15 }) });

const funding: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("funding" as const),
  cryptoPpm: fc.constantFrom(0, 50, 100, 300),
  rolloverPpm: fc.constantFrom(0, 20, 80),
});

const news: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("news" as const),
  offsetS: fc.integer({ min: -660, max: 660 }),
  target: fc.nat({ max: 4 }),
  edge: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 4 }) }),
});

const wait: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("wait" as const),
  ms: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 120_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 120_000, max: 4 * 3_600_000 }) },
  ),
});

const day: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("day" as const),
  minutes: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.nat({ max: 1439 }) }),
});

const midnight: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("midnight" as const),
  then: fc.constantFrom<"none" | "price" | "clock" | "funding">("none", "price", "clock", "funding"),
  sym,
  bp: fc.integer({ min: -120, max: 120 }),
});

const clock: fc.Arbitrary<Step> = fc.constant({ t: "clock" as const });

const session: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("session" as const),
  edge: fc.nat({ max: 4 }),
  deltaMs: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(-1, 0, 1) },
    { weight: 1, arbitrary: fc.integer({ min: -1_800_000, max: 1_800_000 }) },
  ),
});

const boundary: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("boundary" as const),
  offsetMs: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(-1, 0, 1) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 5_000 }) },
  ),
});

const tick: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("tick" as const),
  cryptoPpm: fc.constantFrom(0, 50, 100, 300),
  rolloverPpm: fc.constantFrom(0, 20, 80),
});

const brink: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("brink" as const),
  rule: fc.constantFrom(0, 0, 1, 1, 2),
  ppm: fc.oneof(
    { weight: 1, arbitrary: fc.integer({ min: 900_000, max: 989_999 }) },
    { weight: 1, arbitrary: fc.integer({ min: 990_000, max: 998_999 }) },
    { weight: 2, arbitrary: fc.integer({ min: 999_000, max: 999_999 }) },
  ),
  thin: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 20 }) }),
});

const entryStop: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("entryStop" as const),
  sym,
  alt,
  side,
  size,
  distBp: fc.integer({ min: 0, max: 300 }),
});

const bracket: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("bracket" as const),
  sym,
  alt,
  side,
  size,
  entry: fc.constantFrom<"market" | "rest" | "cross">("market", "rest", "rest", "cross"),
  distBp: fc.integer({ min: 1, max: 120 }),
  tpKind: fc.constantFrom<"none" | "TAKE_PROFIT" | "LIMIT">("none", "TAKE_PROFIT", "TAKE_PROFIT", "LIMIT"),
  tpBp: fc.integer({ min: -20, max: 150 }),
  slBp: fc.oneof(
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 4, arbitrary: fc.integer({ min: -20, max: 200 }) },
  ),
  childTif: fc.constantFrom<"GTC" | "IOC" | "FOK">("GTC", "GTC", "IOC", "FOK"),
  part: fc.integer({ min: 1, max: 4 }),
});

const closeLargest: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("closeLargest" as const),
  part: fc.integer({ min: 0, max: 3 }),
});

const flipLargest: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("flipLargest" as const),
  extra: fc.integer({ min: 1, max: 4 }),
});

/** A brink price followed by an order or a close whose own fees may end the account. */
const brinkThenTrade: fc.Arbitrary<Step[]> = fc
  .tuple(
    brink,
    fc.oneof(
      { weight: 3, arbitrary: closeLargest },
      { weight: 2, arbitrary: market },
      { weight: 2, arbitrary: flipLargest },
      { weight: 2, arbitrary: fc.constant<Step>({ t: "flatten" }) },
    ),
  )
  .map(([a, b]) => [a, b]);

const reach: fc.Arbitrary<Step> = fc.record({
  t: fc.constant("reach" as const),
  pick: fc.nat({ max: 15 }),
  beyondBp: fc.oneof(
    { weight: 2, arbitrary: fc.constant(0) },
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 80 }) },
  ),
  thin: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 20 }) }),
});

export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 90, arbitrary: price },
  { weight: 54, arbitrary: market },
  { weight: 36, arbitrary: limit },
  { weight: 24, arbitrary: stop },
  { weight: 21, arbitrary: close },
  { weight: 21, arbitrary: cancel },
  { weight: 9, arbitrary: funding },
  { weight: 9, arbitrary: news },
  { weight: 24, arbitrary: wait },
  { weight: 6, arbitrary: day },
  { weight: 6, arbitrary: midnight },
  { weight: 6, arbitrary: clock },
  { weight: 6, arbitrary: session },
  { weight: 6, arbitrary: boundary },
  { weight: 6, arbitrary: tick },
  { weight: 12, arbitrary: reach },
  { weight: 9, arbitrary: entryStop },
  { weight: 12, arbitrary: bracket },
);

/**
 * `length` steps. The last `ENDGAME` of them now and then bring the account to the brink of a limit with a trade
 * after it (a brink pair), so that terminations by an order's own fill come late and do not end most runs early.
 */
export const ENDGAME = 30;

export function stepsArb(length: number): fc.Arbitrary<Step[]> {
  const endgame = Math.min(ENDGAME, length);
  const chunk = fc.oneof(
    { weight: 2, arbitrary: stepArb.map((step) => [step]) },
    { weight: 1, arbitrary: brinkThenTrade },
  );
  return fc
    .tuple(
      fc.array(stepArb, { minLength: length - endgame, maxLength: length - endgame }),
      fc.array(chunk, { minLength: endgame, maxLength: endgame }),
    )
    .map(([main, end]) => [...main, ...end.flat()].slice(0, length));
}
