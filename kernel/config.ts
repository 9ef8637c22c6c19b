// Settings come from environment variables, parsed once per process with zod. Every problem is reported
// together and the process stops at start with a message naming each bad setting.
import { z } from "zod";
import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
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

/**
 * A whole-number setting: plain decimal digits only (a leading minus only when `min` is negative), a safe
 * integer within [min, max]. Blanks, signs, hex (`0x1F90`), exponents (`8e3`), fractions and `Infinity` are
 * refused, where `Number()` would quietly turn them into a number (`" "` into 0).
 */
export function integer(range: { min: number; max?: number }, fallback: number | (() => number)) {
  const { min, max } = range;
  const syntax = min < 0 ? /^-?\d+$/ : /^\d+$/;
  const message =
    max === undefined ? `must be a whole number, at least ${min}` : `must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .refine((v) => {
      if (!syntax.test(v)) return false;
      const n = Number(v);
      return Number.isSafeInteger(n) && n >= min && (max === undefined || n <= max);
    }, message)
    .transform(Number)
    .default(typeof fallback === "number" ? () => fallback : fallback);
}

export const port = (fallback: number) => integer({ min: 0, max: 65_535 }, fallback);

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

/** The shortest INTERNAL_TOKEN or WALLET_ADMIN_TOKEN a process accepts. */
export const TOKEN_MIN_LENGTH = 16;

/** What a refusal of a token says about making one (docs/runbook.md, "Deploying safely"). */
export const TOKEN_ADVICE = `at least ${TOKEN_MIN_LENGTH} characters; make one with \`openssl rand -hex 32\``;

export const token = z.string().min(TOKEN_MIN_LENGTH, `must be ${TOKEN_ADVICE}`).optional();

/** Extra trusted CAs: a PEM file read and parsed at start (every certificate in it, at least one). */
export interface CaBundle {
  /** The file the setting named. */
  file: string;
  /** Its PEM text, as TLS `ca` takes it. */
  pem: string;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** A path to a PEM file of CA certificates, read and parsed while the settings are validated. */
export const caFile = z.string().transform((file, ctx): CaBundle => {
  let pem: string;
  try {
    pem = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    ctx.addIssue({ code: "custom", message: `cannot read ${file} (${code})` });
    return z.NEVER;
  }
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    ctx.addIssue({ code: "custom", message: `${file} holds no PEM certificate` });
    return z.NEVER;
  }
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      ctx.addIssue({ code: "custom", message: `${file}: certificate ${index + 1} of ${blocks.length} does not parse` });
      return z.NEVER;
    }
  }
  return { file, pem };
});

/** A PEM file read at start: its path (for messages) and its text (never logged when it is a key). */
export interface PemFile {
  file: string;
  pem: string;
}

function readPem(file: string, ctx: z.RefinementCtx): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    ctx.addIssue({ code: "custom", message: `cannot read ${file} (${code})` });
    return undefined;
  }
}

/** A PEM certificate chain (the first certificate is this process's own), parsed at start. */
export const certFile = z.string().transform((file, ctx): PemFile => {
  const pem = readPem(file, ctx);
  if (pem === undefined) return z.NEVER;
  const first = pem.match(PEM_CERTIFICATE)?.[0];
  try {
    if (first === undefined) throw new Error("no certificate");
    new X509Certificate(first);
  } catch {
    ctx.addIssue({ code: "custom", message: `${file} holds no PEM certificate that parses` });
    return z.NEVER;
  }
  return { file, pem };
});

/** A PEM private key, parsed at start (the message names the file, never the key). */
export const keyFile = z.string().transform((file, ctx): PemFile => {
  const pem = readPem(file, ctx);
  if (pem === undefined) return z.NEVER;
  try {
    createPrivateKey(pem);
  } catch {
    ctx.addIssue({ code: "custom", message: `${file} holds no PEM private key that parses` });
    return z.NEVER;
  }
  return { file, pem };
});

/**
 * TLS on this process's gRPC listener (docs/runbook.md, "Internal gRPC over TLS"): a certificate and its key,
 * both or neither. Checked by `tlsPairGuard`.
 */
export const grpcTlsServerSettings = {
  GRPC_TLS_CERT_FILE: certFile.optional(),
  GRPC_TLS_KEY_FILE: keyFile.optional(),
};

/** TLS on this process's gRPC clients: the CA that signed the servers' certificates. */
export const grpcTlsClientSettings = {
  GRPC_TLS_CA_FILE: caFile.optional(),
};

/** A refinement: GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE come together. */
export function tlsPairGuard(
  settings: { GRPC_TLS_CERT_FILE?: PemFile | undefined; GRPC_TLS_KEY_FILE?: PemFile | undefined },
  ctx: z.RefinementCtx,
): void {
  const cert = settings.GRPC_TLS_CERT_FILE !== undefined;
  const key = settings.GRPC_TLS_KEY_FILE !== undefined;
  if (cert === key) return;
  ctx.addIssue({
    code: "custom",
    path: [cert ? "GRPC_TLS_KEY_FILE" : "GRPC_TLS_CERT_FILE"],
    message: "required with GRPC_TLS_CERT_FILE / GRPC_TLS_KEY_FILE: a TLS listener needs its certificate and its key",
  });
}

// ---------------------------------------------------------------- OpenTelemetry (docs/tracing.md)

/** The samplers the OpenTelemetry Node SDK builds from OTEL_TRACES_SAMPLER; any other name it would ignore. */
export const OTEL_SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

/** The trace exporters the SDK knows (`none` alone turns traces off). */
export const OTEL_TRACE_EXPORTERS = ["otlp", "zipkin", "console", "none"] as const;

const httpUrl = z.string().refine((v) => {
  if (v.trim() !== v) return false;
  try {
    const url = new URL(v);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}, "must be an absolute http:// or https:// URL");

/**
 * The OTEL_* settings this project documents (docs/tracing.md). The SDK reads them from the environment itself
 * and, on a bad value, logs a diagnostic nobody sees and falls back to a default; checked here, a bad one stops
 * the process like any other setting. Parsed but left as strings: the SDK still reads them.
 */
export const otelSettings = {
  OTEL_TRACES_SAMPLER: z.enum(OTEL_SAMPLERS, { message: `must be one of ${OTEL_SAMPLERS.join(", ")}` }).optional(),
  /** The ratio of `traceidratio` and `parentbased_traceidratio`, the only samplers here that take an argument. */
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .refine(
      (v) => /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(v) && Number(v) >= 0 && Number(v) <= 1,
      "must be a number from 0 to 1",
    )
    .optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z
    .enum(["http/protobuf", "http/json", "grpc"], { message: "must be http/protobuf, http/json or grpc" })
    .optional(),
  OTEL_TRACES_EXPORTER: z
    .string()
    .refine((v) => {
      const names = v.split(",").map((name) => name.trim());
      return (
        names.every((name) => (OTEL_TRACE_EXPORTERS as readonly string[]).includes(name)) &&
        (!names.includes("none") || names.length === 1)
      );
    }, "must be a comma-separated list of otlp, zipkin, console, or none alone")
    .optional(),
  OTEL_SDK_DISABLED: z
    .string()
    .refine((v) => ["true", "false", "1", "0"].includes(v.trim().toLowerCase()), "must be true or false")
    .optional(),
};

/** Settings every process shares: the listen host, the log level and the internal token of the gRPC hops. */
export const commonSettings = {
  HOST: host.default("127.0.0.1"),
  LOG_LEVEL: logLevel,
  INTERNAL_TOKEN: token,
  /** Start without the secrets a listener beyond loopback needs (kernel/listen-guard.ts), logged at error level. */
  ALLOW_INSECURE_LISTEN: bool(false),
  DATA_DIR: z.string().default("./data"),
  /** Record the request-path metrics (HTTP, gRPC, validations, shards); false leaves /metrics with process metrics only. */
  METRICS_ENABLED: bool(true),
  ...otelSettings,
};
