// Where the command line gets its credentials: environment variables first, else a profile in a JSON file
// (FTRADE_PROFILE_FILE, default ~/.config/ftrade/profiles.json) that only its owner may read; a file that
// others can read (any group or other permission bit) is refused, never used. A file that cannot be read or
// used is a ProfileError naming the file and where it is wrong, never quoting it: it holds secrets.
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { jsonErrorOffset, lineAndColumn } from "./json-position.js";

export interface Profile {
  /** Base URL of the /v1 listener. */
  url: string;
  /** Base URL of the /api listener. */
  apiUrl: string;
  apiKey?: string;
  apiSecret?: string;
  /** `X-User-Id` for key management. */
  userId?: string;
  adminToken?: string;
}

export class ProfileError extends Error {
  override readonly name = "ProfileError";
}

const FIELDS: Record<keyof Profile, string> = {
  url: "FTRADE_URL",
  apiUrl: "FTRADE_API_URL",
  apiKey: "FTRADE_API_KEY",
  apiSecret: "FTRADE_API_SECRET",
  userId: "FTRADE_USER_ID",
  adminToken: "FTRADE_ADMIN_TOKEN",
};

export function profilePath(env: NodeJS.ProcessEnv): string {
  return env.FTRADE_PROFILE_FILE ?? path.join(env.HOME ?? homedir(), ".config", "ftrade", "profiles.json");
}

function readProfileFile(file: string, name: string, required: boolean): Partial<Profile> {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch {
    if (required) throw new ProfileError(`no profile file at ${file}`);
    return {};
  }
  if ((mode & 0o077) !== 0) {
    throw new ProfileError(
      `${file} is readable by others (mode ${(mode & 0o777).toString(8)}): run \`chmod 600 ${file}\` first`,
    );
  }
  const profile = profileIn(file, parseFile(file, readText(file)), name);
  if (profile === undefined) {
    if (required) throw new ProfileError(`no profile "${name}" in ${file}`);
    return {};
  }
  return profile;
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ProfileError(`cannot read ${file}${typeof code === "string" ? ` (${code})` : ""}`);
  }
}

/** The file's JSON; its SyntaxError, which quotes the text, is replaced by the line and column at fault. */
function parseFile(file: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const offset = jsonErrorOffset(text);
    if (offset < 0) throw new ProfileError(`${file} is not valid JSON`);
    const { line, column } = lineAndColumn(text, offset);
    const end = offset === text.length ? " (the end of the file: something is left open)" : "";
    throw new ProfileError(`${file} is not valid JSON at line ${String(line)}, column ${String(column)}${end}`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Profile `name` of the parsed file, each field checked to be a string (named, never quoted, when not). */
function profileIn(file: string, parsed: unknown, name: string): Partial<Profile> | undefined {
  if (!isObject(parsed)) throw new ProfileError(`${file} must hold a JSON object ({ "profiles": { … } })`);
  const profiles = parsed.profiles;
  if (profiles === undefined) return undefined;
  if (!isObject(profiles)) throw new ProfileError(`${file}: "profiles" must be an object of profiles`);
  if (!Object.hasOwn(profiles, name)) return undefined;
  const profile = profiles[name];
  if (!isObject(profile)) throw new ProfileError(`${file}: profile "${name}" must be an object`);
  const checked: Partial<Profile> = {};
  for (const field of Object.keys(FIELDS) as (keyof Profile)[]) {
    const value = profile[field];
    if (value === undefined) continue;
    if (typeof value !== "string")
      throw new ProfileError(`${file}: profile "${name}" field "${field}" must be a string`);
    checked[field] = value;
  }
  return checked;
}

/** The settings for `profileName` (default "default"), each environment variable overriding the file. */
export function loadProfile(env: NodeJS.ProcessEnv, profileName: string | undefined): Profile {
  const fromFile = readProfileFile(
    profilePath(env),
    profileName ?? env.FTRADE_PROFILE ?? "default",
    profileName !== undefined,
  );
  const merged: Partial<Profile> = { ...fromFile };
  for (const [field, variable] of Object.entries(FIELDS) as [keyof Profile, string][]) {
    const value = env[variable];
    if (value !== undefined && value !== "") merged[field] = value;
  }
  return { ...merged, url: merged.url ?? "http://127.0.0.1:8080", apiUrl: merged.apiUrl ?? "http://127.0.0.1:8081" };
}
