// (c) A spike: a share of the keys (SPIKE_BASE, 20%) runs the whole time; the rest join at once for the middle
// third and leave at once (keys the gateway has not seen yet: cold key cache, new connections). Every key stays
// at its limit, so there must still be no 429.
//   k6 run -e KEYS_FILE=../keys.json -e KEYS=60 -e DURATION=3m load-tests/k6/spike.ts
import http from "k6/http";
import type { Options } from "k6/options";
import { SUMMARY_TREND_STATS, atLimitThresholds, durationMs, envNumber, keyCount, keyScenarios, ms } from "./lib.ts";

export { setup, step } from "./lib.ts";

const keys = keyCount(60);
const rate = envNumber("RATE", 1200);
const duration = __ENV.DURATION ?? "3m";
const total = durationMs(duration);
const base = Math.min(keys, Math.max(1, Math.round(keys * envNumber("SPIKE_BASE", 0.2))));
const third = Math.round(total / 3);

http.setResponseCallback(http.expectedStatuses(200, 201));

export const options: Options = {
  scenarios: {
    ...keyScenarios({ first: 0, count: base, total: keys, ratePerMinute: rate, duration }),
    ...keyScenarios({
      first: base,
      count: keys - base,
      total: keys,
      ratePerMinute: rate,
      duration: ms(third),
      startMs: third,
    }),
  },
  thresholds: atLimitThresholds(100),
  summaryTrendStats: SUMMARY_TREND_STATS,
};
