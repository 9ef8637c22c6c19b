import { describe, expect, it } from "vitest";
import { defaultApi, parseArgs, parseDuration } from "./args.js";

describe("parseDuration", () => {
  it.each([
    ["180s", 180_000],
    ["3m", 180_000],
    ["1500ms", 1_500],
    ["1h", 3_600_000],
    ["20", 20_000],
    ["2.5s", 2_500],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "3 minutes", "-1s", "0s", "1d"])("refuses %j", (text) => {
    expect(() => parseDuration(text)).toThrow();
  });
});

describe("parseArgs", () => {
  it("takes each scenario's defaults", () => {
    expect(parseArgs(["--scenario", "per-key"])).toMatchObject({
      keys: 60,
      rate: 1200,
      durationMs: 180_000,
      connections: 240,
    });
    expect(parseArgs(["--scenario", "over-limit"])).toMatchObject({ keys: 1, rate: 1300, connections: 16 });
    expect(parseArgs(["--scenario=soak"])).toMatchObject({ keys: 30, durationMs: 1_800_000 });
  });

  it("holds up to 100 ms by default; --max-delay 0 never holds, and a hold must be below the window", () => {
    expect(parseArgs(["--scenario", "per-key"]).maxDelayMs).toBe(100);
    expect(parseArgs(["--scenario", "per-key", "--max-delay", "0"]).maxDelayMs).toBe(0);
    expect(parseArgs(["--scenario", "per-key", "--window", "2s", "--max-delay", "1500ms"]).maxDelayMs).toBe(1500);
    expect(() => parseArgs(["--scenario", "per-key", "--window", "2s", "--max-delay", "2s"])).toThrow(/max-delay/);
    expect(() => parseArgs(["--scenario", "per-key", "--max-delay", "soon"])).toThrow();
  });

  it("reads options in both spellings", () => {
    const args = parseArgs([
      "--scenario",
      "spike",
      "--keys=12",
      "--rate",
      "600",
      "--duration",
      "30s",
      "--warmup",
      "10s",
      "--target",
      "http://127.0.0.1:8080/",
      "--no-redis",
      "--window",
      "2s",
      "--symbols",
      "BTC-USD, SOL-USD",
    ]);
    expect(args).toMatchObject({
      scenario: "spike",
      keys: 12,
      rate: 600,
      durationMs: 30_000,
      warmupMs: 10_000,
      target: "http://127.0.0.1:8080",
      redis: false,
      windowMs: 2_000,
      symbols: ["BTC-USD", "SOL-USD"],
    });
  });

  it.each([
    [[]],
    [["--scenario", "stress"]],
    [["--scenario", "per-key", "--keys", "1.5"]],
    [["--scenario", "per-key", "--kyes", "3"]],
    [["--scenario", "per-key", "--keys"]],
    [["--scenario", "per-key", "--backend", "mysql"]],
  ])("refuses %j", (argv) => {
    expect(() => parseArgs(argv)).toThrow();
  });
});

describe("--backend", () => {
  it("names the embedded default embedded, and still takes pglite", () => {
    expect(parseArgs(["--scenario", "per-key", "--backend", "embedded"]).backend).toBe("pglite");
    expect(parseArgs(["--scenario", "per-key", "--backend", "pglite"]).backend).toBe("pglite");
    expect(parseArgs(["--scenario", "per-key"]).backend).toBe("postgres");
  });
});

describe("defaultApi", () => {
  it("is the next port on the same host", () => {
    expect(defaultApi("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8081");
    expect(defaultApi("http://example.test")).toBe("http://example.test:81");
  });
});
