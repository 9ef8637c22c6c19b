// Structured JSON logs (pino). Secrets never reach a log line: request headers and bodies are not logged,
// and the known secret-bearing fields are redacted as a second line of defence. Each key is written once per
// line: pino writes a logger's bindings and a call's fields side by side, so a field that repeats a bound key
// would appear twice (and JSON.parse would keep the call's); the guard below keeps the bound one.
import { pino, symbols, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { repeatedKeys } from "./json-keys.js";
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

/** Keys pino writes on every line itself. */
const LINE_KEYS = ["level", "time", "msg"] as const;

/** Where a line keeps the call's fields that repeated a key the logger writes itself. */
export const REPEATED_FIELD = "repeated";

/**
 * A `formatters.log` for a logger that writes `bound` (and pino's own keys) on every line: a call's field with
 * one of those names is moved under `repeated`, so the line keeps each key once and loses no value.
 */
function onceEach(bound: Iterable<string>): (fields: Record<string, unknown>) => Record<string, unknown> {
  const taken = new Set<string>([...LINE_KEYS, ...bound]);
  return (fields) => {
    let repeated: Record<string, unknown> | undefined;
    for (const key of Object.keys(fields)) if (taken.has(key)) (repeated ??= {})[key] = fields[key];
    if (repeated === undefined) return fields;
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields)) if (!(key in repeated)) kept[key] = value;
    kept[REPEATED_FIELD] = repeated;
    return kept;
  };
}

interface PinoInternals {
  [symbols.chindingsSym]: string;
  [symbols.formattersSym]: { log?: (fields: Record<string, unknown>) => Record<string, unknown> };
}

/**
 * Refuses a child logger whose bindings repeat a key its parent already binds (or one of pino's own), and
 * gives the child the same guard as the root for its calls' fields (`onceEach` over all its bindings).
 */
function guardChild(child: Logger): void {
  const internals = child as unknown as PinoInternals;
  const bindings = internals[symbols.chindingsSym];
  const again = repeatedKeys(`{${bindings.slice(1)}}`).map((r) => r.key);
  const bound = Object.keys(child.bindings());
  again.push(...LINE_KEYS.filter((key) => bound.includes(key)));
  if (again.length > 0) {
    throw new Error(`a child logger's bindings repeat ${again.join(", ")}, which its logger already writes`);
  }
  internals[symbols.formattersSym] = { ...internals[symbols.formattersSym], log: onceEach(bound) };
}

/**
 * A JSON logger. While tracing is on, a line written inside a span carries its `trace_id`, `span_id` and
 * `trace_flags` (no mixin at all when tracing is off). Lines go to stdout unless `destination` is given.
 */
export function createLogger(service: string, level: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { service },
    ...(tracingOn() ? { mixin: traceFields } : {}),
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    formatters: { level: (label) => ({ level: label }), log: onceEach(["service"]) },
    onChild: guardChild,
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
