// Safe by default: a process whose listeners are reachable beyond this machine (HOST not loopback) refuses to
// start without the secrets that close them, unless ALLOW_INSECURE_LISTEN=true says the operator accepts that;
// then it says at start, at error level, what is open (docs/runbook.md, "Deploying safely").
import { isIP } from "node:net";
import type { z } from "zod";
import { TOKEN_ADVICE } from "./config.js";
import type { Logger } from "./log.js";

/** The secrets a listener beyond loopback needs, and what anyone who reaches it can do without each. */
export const LISTEN_SECRETS = {
  INTERNAL_TOKEN: "every internal gRPC method (engine.v1, market.v1, wallet.v1) answers any caller",
  WALLET_ADMIN_TOKEN: "the /api key-management listener believes any X-User-Id (keys for any user)",
} as const;

export type ListenSecret = keyof typeof LISTEN_SECRETS;

/** The settings the guard reads. */
export interface ListenSettings {
  HOST: string;
  ALLOW_INSECURE_LISTEN: boolean;
  INTERNAL_TOKEN?: string | undefined;
  WALLET_ADMIN_TOKEN?: string | undefined;
}

/** Whether HOST only accepts connections from this machine: `localhost`, 127.0.0.0/8 or `::1`. */
export function isLoopbackHost(host: string): boolean {
  const lower = host.toLowerCase();
  if (lower === "localhost") return true;
  if (isIP(lower) === 4) return lower.startsWith("127.");
  if (isIP(lower) === 6) return lower === "::1" || lower === "0:0:0:0:0:0:0:1";
  return false;
}

/** The required secrets that are unset while HOST is not loopback (none on loopback). */
export function missingListenSecrets(settings: ListenSettings, required: readonly ListenSecret[]): ListenSecret[] {
  if (isLoopbackHost(settings.HOST)) return [];
  return required.filter((name) => settings[name] === undefined);
}

/**
 * A zod refinement over a process's parsed settings: each required secret missing beyond loopback is a
 * problem naming it, unless ALLOW_INSECURE_LISTEN is true.
 */
export function listenGuard(required: readonly ListenSecret[]) {
  return (settings: ListenSettings, ctx: z.RefinementCtx): void => {
    if (settings.ALLOW_INSECURE_LISTEN) return;
    for (const name of missingListenSecrets(settings, required)) {
      ctx.addIssue({
        code: "custom",
        path: [name],
        message:
          `required when HOST (${settings.HOST}) is not loopback: without it ${LISTEN_SECRETS[name]}; ` +
          `set it (${TOKEN_ADVICE}), or ALLOW_INSECURE_LISTEN=true to run open on purpose`,
      });
    }
  };
}

/** At start: the error line that names what is open when ALLOW_INSECURE_LISTEN let a process start without a secret. */
export function warnInsecureListen(log: Logger, settings: ListenSettings, required: readonly ListenSecret[]): void {
  const missing = missingListenSecrets(settings, required);
  if (missing.length === 0) return;
  log.error(
    { host: settings.HOST, missing, open: missing.map((name) => LISTEN_SECRETS[name]) },
    `ALLOW_INSECURE_LISTEN=true: listening on ${settings.HOST} without ${missing.join(" and ")}: open to anyone who reaches it`,
  );
}
