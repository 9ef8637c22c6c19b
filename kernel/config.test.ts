// The shared setting types: whole numbers, the OTEL_* settings every process checks, and a CA bundle file.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { makeTestCa } from "../test/harness/receiver.js";
import { caFile, commonSettings, ConfigError, integer, parseSettings } from "./config.js";

/** The message `parse` stops with, or undefined when it accepts. */
function problem(parse: () => unknown): string | undefined {
  try {
    parse();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
}

describe("integer settings", () => {
  const schema = z.object({
    PORT: integer({ min: 0, max: 65_535 }, 8080),
    COUNT: integer({ min: 1 }, () => 3),
    OFFSET: integer({ min: -10, max: 10 }, 0),
  });
  const load = (env: NodeJS.ProcessEnv) => parseSettings(schema, env);

  it("take plain decimal digits, and the default when unset or empty", () => {
    expect(load({})).toEqual({ PORT: 8080, COUNT: 3, OFFSET: 0 });
    expect(load({ PORT: "", COUNT: "" })).toEqual({ PORT: 8080, COUNT: 3, OFFSET: 0 });
    expect(load({ PORT: "0", COUNT: "9007199254740991", OFFSET: "-10" })).toEqual({
      PORT: 0,
      COUNT: 9_007_199_254_740_991,
      OFFSET: -10,
    });
    expect(load({ PORT: "65535", OFFSET: "10" })).toMatchObject({ PORT: 65_535, OFFSET: 10 });
    expect(load({ PORT: "08080" }).PORT).toBe(8080);
  });

  it.each([" ", "\t", " 8080", "8080 ", "0x1F99", "8e3", "1e100", "8080.0", "2.5", "+8080", "-1", "Infinity", "NaN"])(
    "refuse PORT=%j, naming it",
    (value) => {
      expect(problem(() => load({ PORT: value }))).toContain("PORT: must be a whole number from 0 to 65535");
    },
  );

  it("refuse values out of range or beyond the safe integers, and a minus where negatives make no sense", () => {
    expect(problem(() => load({ PORT: "65536" }))).toContain("PORT:");
    expect(problem(() => load({ COUNT: "0" }))).toContain("COUNT: must be a whole number, at least 1");
    expect(problem(() => load({ COUNT: "-0" }))).toContain("COUNT:");
    expect(problem(() => load({ COUNT: "9007199254740993" }))).toContain("COUNT:");
    expect(problem(() => load({ OFFSET: "-11" }))).toContain("OFFSET: must be a whole number from -10 to 10");
    expect(problem(() => load({ OFFSET: "--1" }))).toContain("OFFSET:");
  });

  it("report every bad one together", () => {
    const message = problem(() => load({ PORT: " ", COUNT: "0x10", OFFSET: "1e1" })) ?? "";
    for (const name of ["PORT", "COUNT", "OFFSET"]) expect(message).toContain(`  - ${name}: must be a whole number`);
  });
});

describe("OTEL_* settings", () => {
  const schema = z.object(commonSettings);
  const load = (env: NodeJS.ProcessEnv) => parseSettings(schema, env);

  it("accept the documented values, and none at all", () => {
    expect(() => load({})).not.toThrow();
    const good: NodeJS.ProcessEnv[] = [
      { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" },
      { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1" },
      { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" },
      { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: ".25" },
      { OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1e-3" },
      { OTEL_TRACES_SAMPLER: "parentbased_always_on" },
      { OTEL_TRACES_SAMPLER: "always_off" },
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel-collector:4318" },
      { OTEL_EXPORTER_OTLP_ENDPOINT: "https://[::1]:4318" },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://collector.example.com/v1/traces" },
      { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" },
      { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" },
      { OTEL_TRACES_EXPORTER: "otlp" },
      { OTEL_TRACES_EXPORTER: "console" },
      { OTEL_TRACES_EXPORTER: "otlp, console" },
      { OTEL_TRACES_EXPORTER: "none" },
      { OTEL_SDK_DISABLED: "true" },
      { OTEL_SDK_DISABLED: "FALSE" },
    ];
    for (const env of good) expect(() => load(env), JSON.stringify(env)).not.toThrow();
  });

  it.each([
    ["OTEL_TRACES_SAMPLER", "parentbased_traceid_ratio"],
    ["OTEL_TRACES_SAMPLER", "AlwaysOn"],
    ["OTEL_TRACES_SAMPLER", "jaeger_remote"],
    ["OTEL_TRACES_SAMPLER", " always_on"],
    ["OTEL_TRACES_SAMPLER_ARG", "10%"],
    ["OTEL_TRACES_SAMPLER_ARG", "1.5"],
    ["OTEL_TRACES_SAMPLER_ARG", "-0.1"],
    ["OTEL_TRACES_SAMPLER_ARG", " "],
    ["OTEL_TRACES_SAMPLER_ARG", "0x1"],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "otel-collector:4318"],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "grpc://otel-collector:4317"],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "/v1/traces"],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", " http://otel-collector:4318"],
    ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http//collector/v1/traces"],
    ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "file:///tmp/spans"],
    ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http"],
    ["OTEL_TRACES_EXPORTER", "jaeger"],
    ["OTEL_TRACES_EXPORTER", "otlp,none"],
    ["OTEL_TRACES_EXPORTER", "otlp,"],
    ["OTEL_SDK_DISABLED", "yes"],
  ])("stop at %s=%j, naming it", (name, value) => {
    expect(problem(() => load({ [name]: value }))).toMatch(new RegExp(`^  - ${name}: `, "m"));
  });
});

describe("a CA file setting", () => {
  const schema = z.object({ CA_FILE: caFile.optional() });
  const load = (env: NodeJS.ProcessEnv) => parseSettings(schema, env);
  const ca = makeTestCa();
  const dir = mkdtempSync(path.join(tmpdir(), "fts-config-"));
  afterAll(() => {
    ca.remove();
    rmSync(dir, { recursive: true, force: true });
  });
  const write = (name: string, text: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it("reads and keeps the PEM of a file of certificates", () => {
    expect(load({}).CA_FILE).toBeUndefined();
    expect(load({ CA_FILE: ca.caFile }).CA_FILE).toEqual({ file: ca.caFile, pem: ca.caPem });
    const two = write("two.pem", `${ca.caPem}\n${ca.cert}`);
    expect(load({ CA_FILE: two }).CA_FILE?.pem).toContain(ca.cert.trim());
  });

  it("stops naming the setting when the file is missing, holds no certificate, or one does not parse", () => {
    const garbled = ca.caPem.replace(/(-----BEGIN CERTIFICATE-----\n)[A-Za-z0-9+/]{16}/, "$1AAAAAAAAAAAAAAAA");
    const cases: [string, RegExp][] = [
      [path.join(dir, "missing.pem"), /CA_FILE: cannot read .*missing\.pem \(ENOENT\)/],
      [dir, /CA_FILE: cannot read .* \(EISDIR\)/],
      [write("empty.pem", ""), /CA_FILE: .* holds no PEM certificate/],
      [write("key.pem", ca.key), /CA_FILE: .* holds no PEM certificate/],
      [write("text.pem", "not a certificate\n"), /CA_FILE: .* holds no PEM certificate/],
      [write("garbled.pem", garbled), /CA_FILE: .*certificate 1 of 1 does not parse/],
      [write("second.pem", `${ca.caPem}\n${garbled}`), /CA_FILE: .*certificate 2 of 2 does not parse/],
    ];
    for (const [file, message] of cases)
      expect(
        problem(() => load({ CA_FILE: file })),
        file,
      ).toMatch(message);
  });
});
