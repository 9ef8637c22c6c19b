// (d) A soak: fewer keys (30) at their limit for a long time (30 minutes), to find what grows: latency, memory,
// errors. Same thresholds as per-key; for the drift over time, keep k6's time series (--out json=…).
//   k6 run -e KEYS_FILE=../keys.json -e KEYS=30 -e DURATION=30m --out json=soak.json load-tests/k6/soak.ts
import http from "k6/http";
import type { Options } from "k6/options";
import { envNumber, keyCount, keyScenarios } from "./lib.ts";

export { setup, step } from "./lib.ts";

const keys = keyCount(30);

http.setResponseCallback(http.expectedStatuses(200, 201));

export const options: Options = {
  scenarios: keyScenarios({
    first: 0,
    count: keys,
    total: keys,
    ratePerMinute: envNumber("RATE", 1200),
    duration: __ENV.DURATION ?? "30m",
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
