// RATE_LIMIT_MAX_DELAY_MS: its default, and the values the gateway refuses to start with.
import { describe, expect, it } from "vitest";
import { ConfigError } from "../kernel/config.js";
import { loadGatewaySettings } from "./config.js";

describe("gateway rate-limit settings", () => {
  it("default to 1200 per 60 s, holding a request up to 100 ms for a slot that frees", () => {
    expect(loadGatewaySettings({})).toMatchObject({
      RATE_LIMIT_MAX: 1200,
      RATE_LIMIT_WINDOW_MS: 60_000,
      RATE_LIMIT_MAX_DELAY_MS: 100,
    });
  });

  it("read RATE_LIMIT_MAX_DELAY_MS, 0 meaning never hold", () => {
    expect(loadGatewaySettings({ RATE_LIMIT_MAX_DELAY_MS: "0" }).RATE_LIMIT_MAX_DELAY_MS).toBe(0);
    expect(
      loadGatewaySettings({ RATE_LIMIT_WINDOW_MS: "2000", RATE_LIMIT_MAX_DELAY_MS: "1999" }).RATE_LIMIT_MAX_DELAY_MS,
    ).toBe(1999);
  });

  it.each([
    [{ RATE_LIMIT_MAX_DELAY_MS: "-1" }],
    [{ RATE_LIMIT_MAX_DELAY_MS: "2.5" }],
    [{ RATE_LIMIT_MAX_DELAY_MS: "soon" }],
    [{ RATE_LIMIT_WINDOW_MS: "2000", RATE_LIMIT_MAX_DELAY_MS: "2000" }],
    [{ RATE_LIMIT_WINDOW_MS: "100" }],
  ])("refuse a max delay that is not a whole number of ms below the window: %o", (env) => {
    expect(() => loadGatewaySettings(env)).toThrow(ConfigError);
    expect(() => loadGatewaySettings(env)).toThrow(/RATE_LIMIT_MAX_DELAY_MS/);
  });
});
