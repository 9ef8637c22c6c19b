import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { validationMetrics } from "./metrics.js";

describe("validationMetrics", () => {
  it("counts outcomes (cumulative across scrapes) and durations", async () => {
    const registry = new Registry();
    const hook = validationMetrics(registry);
    hook("valid", 0.000_003);
    hook("valid", 0.000_02);
    hook("unauthorized", 0.2);
    let text = await registry.metrics();
    expect(text).toContain('wallet_key_validations_total{outcome="valid"} 2');
    expect(text).toContain('wallet_key_validations_total{outcome="unauthorized"} 1');
    expect(text).toContain('wallet_key_validation_duration_seconds_bucket{le="0.00001"} 1');
    expect(text).toContain('wallet_key_validation_duration_seconds_bucket{le="0.05"} 2');
    expect(text).toContain("wallet_key_validation_duration_seconds_count 3");
    hook("valid", 0.000_001);
    hook("permission_denied", 0.000_001);
    text = await registry.metrics();
    expect(text).toContain('wallet_key_validations_total{outcome="valid"} 3');
    expect(text).toContain('wallet_key_validations_total{outcome="permission_denied"} 1');
    expect(text).toContain("wallet_key_validation_duration_seconds_count 5");
  });
});
