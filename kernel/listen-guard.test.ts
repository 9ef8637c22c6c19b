// The listen guard through each process's own settings loader: beyond loopback the secrets are required,
// on loopback they are not, and ALLOW_INSECURE_LISTEN=true lets a process start open (and say so).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadEngineSettings } from "../engine/config.js";
import { loadGatewaySettings } from "../gateway/config.js";
import { loadWalletSettings } from "../wallet/config.js";
import { ConfigError } from "./config.js";
import { createLogger } from "./log.js";
import { isLoopbackHost, warnInsecureListen } from "./listen-guard.js";

const TOKEN = "0123456789abcdef0123";

/** The settings a loader refused, by name; empty when it accepted them. */
function refused(load: (env: NodeJS.ProcessEnv) => unknown, env: NodeJS.ProcessEnv): string[] {
  try {
    load(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems.map((problem) => problem.slice(0, problem.indexOf(":")));
  }
}

describe("isLoopbackHost", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["::1", true],
    ["localhost", true],
    ["LOCALHOST", true],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.5", false],
    ["engine", false],
    ["localhost.example.com", false],
  ])("%s is loopback: %s", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe("a process listening beyond loopback", () => {
  it.each([
    ["wallet", loadWalletSettings, ["INTERNAL_TOKEN"]],
    ["engine", loadEngineSettings, ["INTERNAL_TOKEN"]],
    ["gateway", loadGatewaySettings, ["INTERNAL_TOKEN", "WALLET_ADMIN_TOKEN"]],
  ] as const)("the %s refuses HOST=0.0.0.0 without %j", (_name, load, secrets) => {
    expect(refused(load, { HOST: "0.0.0.0" })).toEqual(secrets);
    expect(refused(load, { HOST: "0.0.0.0", INTERNAL_TOKEN: TOKEN, WALLET_ADMIN_TOKEN: TOKEN })).toEqual([]);
  });

  it.each([
    ["wallet", loadWalletSettings],
    ["engine", loadEngineSettings],
    ["gateway", loadGatewaySettings],
  ] as const)("the %s needs no secret on loopback, and starts open with ALLOW_INSECURE_LISTEN=true", (_n, load) => {
    for (const host of ["127.0.0.1", "::1", "localhost"]) expect(refused(load, { HOST: host })).toEqual([]);
    expect(refused(load, { HOST: "0.0.0.0", ALLOW_INSECURE_LISTEN: "true" })).toEqual([]);
  });

  it("names the setting, why it is needed and the way out in the message", () => {
    expect(() => loadGatewaySettings({ HOST: "::", INTERNAL_TOKEN: TOKEN })).toThrow(
      /WALLET_ADMIN_TOKEN: required when HOST \(::\) is not loopback: .*X-User-Id.*ALLOW_INSECURE_LISTEN=true/,
    );
  });

  it.each([
    ["wallet", "INTERNAL_TOKEN", loadWalletSettings],
    ["engine", "INTERNAL_TOKEN", loadEngineSettings],
    ["gateway", "INTERNAL_TOKEN", loadGatewaySettings],
    ["gateway", "WALLET_ADMIN_TOKEN", loadGatewaySettings],
  ] as const)("the %s refuses a %s of 15 characters, saying the minimum and how to make one", (_n, name, load) => {
    expect(() => load({ INTERNAL_TOKEN: TOKEN, WALLET_ADMIN_TOKEN: TOKEN, [name]: "0123456789abcde" })).toThrow(
      `${name}: must be at least 16 characters; make one with \`openssl rand -hex 32\``,
    );
    expect(refused(load, { INTERNAL_TOKEN: TOKEN, WALLET_ADMIN_TOKEN: TOKEN, [name]: "0123456789abcdef" })).toEqual([]);
  });

  it("is the minimum docs/runbook.md gives, with the same way to make one", () => {
    const runbook = readFileSync(new URL("../docs/runbook.md", import.meta.url), "utf8");
    expect(runbook).toContain("`INTERNAL_TOKEN` and `WALLET_ADMIN_TOKEN` are at least 16 characters");
    expect(runbook).toContain("Make each with `openssl rand -hex 32`");
  });

  it("says the minimum length and how to make a token when one is missing beyond loopback", () => {
    expect(() => loadWalletSettings({ HOST: "0.0.0.0" })).toThrow(
      "set it (at least 16 characters; make one with `openssl rand -hex 32`), or ALLOW_INSECURE_LISTEN=true",
    );
  });

  it("logs at error level what is open when the override let it start", () => {
    const lines: { level: number; msg: string; missing?: string[] }[] = [];
    const log = createLogger("gateway", "info");
    const spy = (obj: { missing?: string[] }, msg: string): void => {
      lines.push({ level: 50, msg, ...obj });
    };
    Object.assign(log, { error: spy });
    const settings = loadGatewaySettings({ HOST: "0.0.0.0", ALLOW_INSECURE_LISTEN: "true", INTERNAL_TOKEN: TOKEN });
    warnInsecureListen(log, settings, ["INTERNAL_TOKEN", "WALLET_ADMIN_TOKEN"]);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.missing).toEqual(["WALLET_ADMIN_TOKEN"]);
    expect(lines[0]?.msg).toMatch(/^ALLOW_INSECURE_LISTEN=true: listening on 0\.0\.0\.0 without WALLET_ADMIN_TOKEN/);
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
    lines.length = 0;
    warnInsecureListen(log, loadGatewaySettings({}), ["INTERNAL_TOKEN", "WALLET_ADMIN_TOKEN"]);
    expect(lines).toHaveLength(0);
  });
});
