// The wallet's per-validation metrics, shared by wallet/main.ts and the in-process part of bench:validate.
// A validation takes a few µs, so the hook must cost next to nothing: outcomes are counted in plain numbers
// and handed to the prom-client counter when it is collected (at scrape time), and durations go to a
// FastHistogram. What /metrics shows is unchanged: the same names, labels and buckets.
import { Counter, type Registry } from "prom-client";
import { FastHistogram } from "../kernel/fast-histogram.js";
import { DENIALS, type Denial } from "./service.js";

type Outcome = "valid" | Denial;
const OUTCOMES: readonly Outcome[] = ["valid", ...DENIALS];

export const VALIDATION_BUCKETS = [0.000_01, 0.000_05, 0.000_1, 0.000_5, 0.001, 0.005, 0.01, 0.05] as const;

/** Registers the validation metrics and returns the hook for WalletService's `onValidation`. */
export function validationMetrics(registry: Registry): (outcome: Outcome, seconds: number) => void {
  const pending: Record<Outcome, number> = { valid: 0, unauthorized: 0, ip_not_whitelisted: 0, permission_denied: 0 };
  new Counter({
    name: "wallet_key_validations_total",
    help: "Key validations by outcome.",
    labelNames: ["outcome"],
    registers: [registry],
    collect() {
      for (const outcome of OUTCOMES) {
        const count = pending[outcome];
        if (count === 0) continue;
        pending[outcome] = 0;
        this.inc({ outcome }, count);
      }
    },
  });
  const seconds = new FastHistogram({
    name: "wallet_key_validation_duration_seconds",
    help: "Time to answer a key validation inside the wallet.",
    buckets: VALIDATION_BUCKETS,
    registers: [registry],
  });
  return (outcome, duration) => {
    pending[outcome] += 1;
    seconds.observe(duration);
  };
}
