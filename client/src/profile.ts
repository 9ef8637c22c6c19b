// Where the command line gets its credentials: environment variables first, else a profile in a JSON file
// (FTRADE_PROFILE_FILE, default ~/.config/ftrade/profiles.json) that only its owner may read; a file that
// others can read (any group or other permission bit) is refused, never used.
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

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
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { profiles?: Record<string, Partial<Profile>> };
  const profile = parsed.profiles?.[name];
  if (profile === undefined) {
    if (required) throw new ProfileError(`no profile "${name}" in ${file}`);
    return {};
  }
  return profile;
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
