// market.v1: prices and the news calendar pushed from outside, accepted only when the engine runs
// PRICE_FEED=push. What a push may hold is read by engine/market/ (parsePushedPrices, parseCalendar).
import { ServiceError, type Issue } from "../kernel/errors.js";
import { unary, type UnaryOptions } from "../kernel/grpc.js";
import type { MarketDataHandlers } from "../proto/gen/market/v1/MarketData.js";
import { parseCalendar } from "./market/calendar.js";
import { parsePushedPrices } from "./market/pushed-prices.js";
import type { EngineServerDeps } from "./server-deps.js";

type MarketDeps = Pick<
  EngineServerDeps,
  "acceptsPushes" | "catalogue" | "publish" | "applyCalendar" | "calendar" | "log"
>;

export function marketHandlers(deps: MarketDeps, options: UnaryOptions): MarketDataHandlers {
  let calendarQueue: Promise<void> = Promise.resolve();
  /** Every market.v1 method: market data comes from outside only when the engine runs PRICE_FEED=push. */
  const refuseUnlessPushFeed = (): void => {
    if (deps.acceptsPushes) return;
    throw new ServiceError(
      "market_data_refused",
      {},
      "market.v1 is refused: the engine runs its price simulator (PRICE_FEED=simulator); start it with PRICE_FEED=push",
    );
  };
  /** What a push holds, once market.v1 is accepted at all; a push with any problem is refused whole. */
  const accepted = <T>(parse: () => { ok: T } | { issues: Issue[] }): T => {
    refuseUnlessPushFeed();
    const parsed = parse();
    if ("issues" in parsed) throw ServiceError.invalid(parsed.issues);
    return parsed.ok;
  };
  return {
    PushPrices: unary(
      "PushPrices",
      async (request) => {
        await deps.publish(accepted(() => parsePushedPrices(request.prices, deps.catalogue)));
        return {};
      },
      options,
    ),
    SetCalendar: unary(
      "SetCalendar",
      async (request) => {
        const events = accepted(() => parseCalendar(request.events, deps.catalogue));
        // One replacement at a time, store → shards → served, so concurrent calls cannot leave the stored
        // calendar (what a restart loads) and the served one different.
        const replaced = calendarQueue.then(async () => {
          await deps.applyCalendar(events);
          deps.calendar.replace(events);
        });
        calendarQueue = replaced.catch(() => undefined);
        await replaced;
        deps.log.info({ events: events.length }, "news calendar replaced");
        return {};
      },
      options,
    ),
  };
}
