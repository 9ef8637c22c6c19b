// Settings come from environment variables, parsed once per process with zod. Every problem is reported
// together and the process stops at start with a message naming each bad setting.
import { z } from "zod";
import { isIP } from "node:net";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid settings:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Empty strings count as unset, like most shells and orchestrators treat them. */
function present(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== "") out[name] = value;
  return out;
}

export function parseSettings<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const result = schema.safeParse(present(env));
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "(settings)"}: ${issue.message}`);
  throw new ConfigError(problems);
}

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback);

export const bool = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0"], { message: "must be true or false" })
    .default(fallback ? "true" : "false")
    .transform((v) => v === "true" || v === "1");

export const host = z.string().refine((v) => isIP(v) !== 0 || /^[a-zA-Z0-9.-]+$/.test(v), "must be an IP or hostname");

export const logLevel = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info");

export const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v), "must be a postgres:// or postgresql:// URL")
  .optional();

export const redisUrl = z
  .string()
  .refine((v) => /^rediss?:\/\//.test(v), "must be a redis:// or rediss:// URL")
  .optional();

export const token = z.string().min(16, "must be at least 16 characters").optional();

/** Settings every process shares (CONTRACT 8). */
export const commonSettings = {
  HOST: host.default("127.0.0.1"),
  LOG_LEVEL: logLevel,
  INTERNAL_TOKEN: token,
  DATA_DIR: z.string().default("./data"),
  /** Record the request-path metrics (HTTP, gRPC, validations, shards); false leaves /metrics with process metrics only. */
  METRICS_ENABLED: bool(true),
};
