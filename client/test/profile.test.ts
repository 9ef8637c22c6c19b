// A profile file `ftrade` cannot use (not JSON, not the expected shape, unreadable) is an error naming the file
// and what is wrong with it, exit code 1, and never prints a byte of it: it holds the key's secret and the
// admin token. Run as the real `ftrade` process, since Node prints an uncaught error with the line it came from.
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadProfile, ProfileError } from "../src/profile.js";

const BIN = path.resolve(import.meta.dirname, "..", "bin", "ftrade.js");
const SECRET = "svc_sk_0123456789abcdef-do-not-print";
const ADMIN = "admin-token-do-not-print";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "ftrade-profile-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function profileFile(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  chmodSync(file, 0o600);
  return file;
}

interface Ran {
  code: number;
  output: string;
  stderr: string;
}

/** `ftrade <args>` as a process, with FTRADE_PROFILE_FILE and no credentials in its environment. */
async function ftrade(file: string, args: string[]): Promise<Ran> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, FTRADE_PROFILE_FILE: file };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, output: stdout + stderr, stderr });
    });
  });
}

// The secret and the token sit on the faulty line itself, where Node's report of an uncaught SyntaxError quotes it.
const MALFORMED = [
  "{",
  '  "profiles": {',
  '    "default": {',
  '      "url": "http://127.0.0.1:1", "apiKey": "svc_ak_1",',
  `      "apiSecret": '${SECRET}', "adminToken": ${ADMIN}`,
  "    }",
  "  }",
  "}",
].join("\n");

describe("ftrade with a profile file it cannot use", () => {
  it("names the file and the line of a malformed one, exits 1, and prints none of it", async () => {
    const file = profileFile("malformed.json", MALFORMED);
    for (const args of [["tickers"], ["--profile", "default", "--json", "plans"], ["keys", "list"]]) {
      const ran = await ftrade(file, args);
      expect(ran.code).toBe(1);
      expect(ran.stderr).toBe(`error: ${file} is not valid JSON at line 5, column 20\n`);
      expect(ran.output).not.toContain(SECRET.slice(0, 12));
      expect(ran.output).not.toContain(ADMIN.slice(0, 12));
    }
  });

  it("names where a file ends too soon, or holds a field of the wrong type, without quoting it", async () => {
    const cut = profileFile("cut.json", `{"profiles":{"default":{"apiSecret":"${SECRET}","adminToken":"${ADMIN}"`);
    const ranCut = await ftrade(cut, ["tickers"]);
    expect(ranCut.code).toBe(1);
    expect(ranCut.stderr).toMatch(/is not valid JSON at line 1, column \d+ \(the end of the file/);
    const typed = profileFile(
      "typed.json",
      JSON.stringify({ profiles: { default: { apiSecret: SECRET, apiKey: { nested: ADMIN } } } }),
    );
    const ranTyped = await ftrade(typed, ["tickers"]);
    expect(ranTyped.code).toBe(1);
    expect(ranTyped.stderr).toBe(`error: ${typed}: profile "default" field "apiKey" must be a string\n`);
    for (const ran of [ranCut, ranTyped]) {
      expect(ran.output).not.toContain(SECRET.slice(0, 12));
      expect(ran.output).not.toContain(ADMIN.slice(0, 12));
    }
  });

  it("refuses a file that is not an object of profiles, or cannot be read, as a ProfileError", () => {
    const refusal = (file: string): string => {
      try {
        loadProfile({ FTRADE_PROFILE_FILE: file }, "default");
        return "loaded";
      } catch (error) {
        expect(error).toBeInstanceOf(ProfileError);
        return (error as Error).message;
      }
    };
    expect(refusal(profileFile("array.json", `["${SECRET}"]`))).toBe(
      `${path.join(dir, "array.json")} must hold a JSON object ({ "profiles": { … } })`,
    );
    expect(refusal(profileFile("profiles.json", `{"profiles":["${SECRET}"]}`))).toBe(
      `${path.join(dir, "profiles.json")}: "profiles" must be an object of profiles`,
    );
    expect(refusal(profileFile("string.json", `{"profiles":{"default":"${SECRET}"}}`))).toBe(
      `${path.join(dir, "string.json")}: profile "default" must be an object`,
    );
    const folder = path.join(dir, "folder");
    mkdirSync(folder, { mode: 0o700 });
    expect(refusal(folder)).toBe(`cannot read ${folder} (EISDIR)`);
  });
});
