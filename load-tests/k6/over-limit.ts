// (b) One key over its limit: 1,300 requests/min against a limit of 1,200 per rolling minute. The key must be
// refused (429) for the excess and never get more than LIMIT accepted in any rolling window; the driver
// (npm run load -- --scenario over-limit) also shows that it gets exactly LIMIT.
//   k6 run -e KEYS_FILE=../keys.json -e DURATION=3m load-tests/k6/over-limit.ts
import http from "k6/http";
import type { Options } from "k6/options";
import { SUMMARY_TREND_STATS, envNumber, keyScenarios } from "./lib.ts";

export { setup, step } from "./lib.ts";

const limit = envNumber("LIMIT", 1200);

// 429 is the expected answer to the excess: it is not a failed request here.
http.setResponseCallback(http.expectedStatuses(200, 201, 429));

export const options: Options = {
  // Four VUs, like every key elsewhere: once the key's window is full the gateway holds nearly every accepted
  // request close to RATE_LIMIT_MAX_DELAY_MS for its slot, longer than the 46 ms between sends, so one VU would
  // fall behind the rate. Each VU's accepted_in_window log then sees only its own requests (still a lower bound).
  scenarios: keyScenarios({
    first: envNumber("KEY", 1) - 1,
    count: 1,
    total: 1,
    ratePerMinute: envNumber("RATE", 1300),
    duration: __ENV.DURATION ?? "3m",
  }),
  thresholds: {
    http_req_failed: ["rate==0"],
    // The held requests wait up to MAX_DELAY_MS (the gateway's RATE_LIMIT_MAX_DELAY_MS) on top of the usual 50.
    http_req_duration: [`p(99)<${envNumber("P99_MS", 50 + envNumber("MAX_DELAY_MS", 100))}`],
    rate_limited: ["count>0"],
    unexpected_status: ["count==0"],
    accepted_in_window: [`max<=${limit}`],
  },
  summaryTrendStats: SUMMARY_TREND_STATS,
};
