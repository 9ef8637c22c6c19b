// (a) Many keys, each at exactly its limit (1,200 requests/min, evenly spaced), the mix of scripts/load/mix.ts:
// 70% reads, 25% place/cancel, 5% close. No key may see a 429, nothing may fail, p99 within P99_MS.
//   k6 run -e KEYS_FILE=../keys.json -e KEYS=60 -e DURATION=3m load-tests/k6/per-key.ts
import http from "k6/http";
import type { Options } from "k6/options";
import { steadyOptions } from "./lib.ts";

export { setup, step } from "./lib.ts";

http.setResponseCallback(http.expectedStatuses(200, 201));

export const options: Options = steadyOptions({ keys: 60, duration: "3m" });
