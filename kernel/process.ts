// The entry point every service shares: parse settings (a bad one stops the process with exit code 1 and a
// message naming it), start, and stop gracefully on SIGINT/SIGTERM (exit 0 once drained, 1 if stopping failed;
// a signal while starting aborts the start's signal, and the process exits 0 once the start gave up, or stops
// what started);
// under the `npm start` supervisor, on its stop message instead, and it tells the supervisor once it started
// (see `isSupervised`).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "./config.js";
import { createLogger, type Logger } from "./log.js";
import { startTracing, stopTracing, type TracingOptions } from "./tracing.js";

export interface Stoppable {
  stop(): Promise<void>;
}

/** True when the module at `moduleUrl` is the script node was started with (not imported by a test). */
export function isEntryPoint(moduleUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && path.resolve(entry) === fileURLToPath(moduleUrl);
}

/** Set by the supervisor (scripts/start.ts) in its children's environment, next to an IPC channel. */
export const SUPERVISED_ENV = "FTS_SUPERVISED";

/** The message the supervisor sends a child to stop it gracefully. */
export const STOP_MESSAGE = { type: "stop" } as const;

/** The message a supervised child sends the supervisor once it started (it serves, and stops on STOP_MESSAGE). */
export const STARTED_MESSAGE = { type: "started" } as const;

/** True for STARTED_MESSAGE as it arrives over the IPC channel. */
export function isStartedMessage(message: unknown): boolean {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === "started";
}

function isStopMessage(message: unknown): boolean {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === "stop";
}

/** Started by the supervisor: an IPC channel to it and its marker in the environment. */
function isSupervised(): boolean {
  return process.env[SUPERVISED_ENV] === "1" && typeof process.send === "function";
}

/**
 * SIGINT/SIGTERM while the service starts (not supervised: the supervisor stops a child once it said it started)
 * abort `signal`; `done()` stops listening for them and says which came, if any.
 */
function startingSignals(): { signal: AbortSignal; done: () => NodeJS.Signals | undefined } {
  const aborting = new AbortController();
  let signalled: NodeJS.Signals | undefined;
  const early = (signal: NodeJS.Signals): void => {
    signalled ??= signal;
    aborting.abort();
  };
  if (!isSupervised()) {
    process.on("SIGINT", early);
    process.on("SIGTERM", early);
  }
  return {
    signal: aborting.signal,
    done() {
      process.off("SIGINT", early);
      process.off("SIGTERM", early);
      return signalled;
    },
  };
}

export function runService<S extends { LOG_LEVEL: string }>(
  name: string,
  loadSettings: (env: NodeJS.ProcessEnv) => S,
  start: (settings: S, log: Logger, signal: AbortSignal) => Promise<Stoppable>,
  tracing: TracingOptions = {},
): void {
  let settings: S;
  try {
    settings = loadSettings(process.env);
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const starting = startingSignals();
  // Tracing (when OTEL_* settings ask for it) starts before the logger, which then adds trace ids to lines.
  const started = startTracing(name, process.env, tracing).then(async () => {
    const log = createLogger(name, settings.LOG_LEVEL);
    return { log, service: await start(settings, log, starting.signal) };
  });
  started.then(
    ({ log, service }) => {
      const signalled = starting.done();
      let stopping = false;
      const stop = (signal: NodeJS.Signals): void => {
        if (stopping) return;
        stopping = true;
        log.info({ signal }, `${name} stopping`);
        service
          .stop()
          .then(stopTracing)
          .then(
            () => {
              log.info(`${name} stopped`);
              process.exit(0);
            },
            (error: unknown) => {
              log.error({ err: error }, `${name} stop failed`);
              process.exit(1);
            },
          );
      };
      if (isSupervised()) {
        // Under `npm start` stopping is the supervisor's call: it stops the gateway first (draining requests),
        // then the services behind it. A signal to the whole group (Ctrl-C in a terminal, systemd's
        // control-group kill) would otherwise stop the engine while the gateway still drains. So the child
        // stops when the supervisor says so, or when the supervisor is gone (its channel closes).
        process.on("message", (message: unknown) => {
          if (isStopMessage(message)) stop("SIGTERM");
        });
        process.once("disconnect", () => {
          stop("SIGTERM");
        });
        // The supervisor may have gone while this process was starting: its channel closed before anyone listened.
        if (!process.connected) stop("SIGTERM");
        const leave = (signal: NodeJS.Signals): void => {
          log.info({ signal }, `${name}: ${signal} left to the supervisor`);
        };
        process.on("SIGINT", leave);
        process.on("SIGTERM", leave);
        if (process.connected) process.send?.(STARTED_MESSAGE);
      } else {
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
        if (signalled !== undefined) stop(signalled);
      }
    },
    (error: unknown) => {
      const signalled = starting.done();
      if (signalled !== undefined) {
        createLogger(name, settings.LOG_LEVEL).info({ signal: signalled }, `${name} stopped while starting`);
        void stopTracing().finally(() => process.exit(0));
        return;
      }
      process.stderr.write(
        `${name}: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
