// (a) Many keys, each at exactly its limit (1,200 requests/min, evenly spaced), the mix of scripts/load/mix.ts:
// 70% reads, 25% place/cancel, 5% close. No key may see a 429, nothing may fail, p99 within P99_MS.
//   k6 run -e KEYS_FILE=../keys.json -e KEYS=60 -e DURATION=3m load-tests/k6/per-key.ts
import http from "k6/http";
import type { Options } from "k6/options";
import { envNumber, keyCount, keyScenarios } from "./lib.ts";

export { setup, step } from "./lib.ts";

const keys = keyCount(60);
const rate = envNumber("RATE", 1200);

http.setResponseCallback(http.expectedStatuses(200, 201));

export const options: Options = {
  scenarios: keyScenarios({
    first: 0,
    count: keys,
    total: keys,
    ratePerMinute: rate,
    duration: __ENV.DURATION ?? "3m",
  }),
  thresholds: {
    http_req_failed: ["rate==0"],
    http_req_duration: [`p(99)<${envNumber("P99_MS", 50)}`],
    rate_limited: ["count==0"],
    unexpected_status: ["count==0"],
    dropped_iterations: ["count==0"],
  },
  summaryTrendStats: ["med", "p(95)", "p(99)", "max"],
};
