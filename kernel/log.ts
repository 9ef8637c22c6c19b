// Structured JSON logs (pino). Secrets never reach a log line: request headers and bodies are not logged,
// and the known secret-bearing fields are redacted as a second line of defence.
import { pino, type Logger } from "pino";
import { traceFields, tracingOn } from "./tracing.js";

export type { Logger };

export const REDACT_PATHS = [
  "key",
  "secret",
  "webhookSecret",
  "webhook_secret",
  "*.key",
  "*.secret",
  "*.webhookSecret",
  "*.webhook_secret",
  'headers["x-api-key"]',
  'headers["x-api-secret"]',
  'headers["authorization"]',
  "*.headers['x-api-key']",
  "*.headers['x-api-secret']",
  "*.headers['authorization']",
];

/**
 * A JSON logger. While tracing is on, a line written inside a span carries its `trace_id`, `span_id` and
 * `trace_flags` (no mixin at all when tracing is off).
 */
export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    ...(tracingOn() ? { mixin: traceFields } : {}),
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    formatters: { level: (label) => ({ level: label }) },
  });
}
