// (d) A soak: fewer keys (30) at their limit for a long time (30 minutes), to find what grows: latency, memory,
// errors. Same thresholds as per-key; for the drift over time, keep k6's time series (--out json=…).
//   k6 run -e KEYS_FILE=../keys.json -e KEYS=30 -e DURATION=30m --out json=soak.json load-tests/k6/soak.ts
import http from "k6/http";
import type { Options } from "k6/options";
import { steadyOptions } from "./lib.ts";

export { setup, step } from "./lib.ts";

http.setResponseCallback(http.expectedStatuses(200, 201));

export const options: Options = steadyOptions({ keys: 30, duration: "30m" });
