// The `npm start` supervisor's policy (docs/runbook.md, "`npm start`: supervision"): it starts its children in
// order and stops them in the reverse order. A child that exits when it was not told to is a crash, whatever the
// exit code (0 too) and whether or not it had started: it is started again after a delay that doubles with each
// crash (up to a ceiling, back to the first delay once the child stayed up for a whole window); more crashes of
// one child within the window than the budget allows stop the whole stack. No child is started again while the
// stack stops. Processes, clocks and logs are passed in, so tests drive it with fakes
// (scripts/supervisor.test.ts); scripts/start.ts gives it real processes.
import { z } from "zod";
import { integer, parseSettings } from "../kernel/config.js";

/** One running child process, as the supervisor drives it. */
export interface SupervisedChild {
  readonly pid: number | undefined;
  /** Asks a started child to stop gracefully (it drains, then exits). */
  stop(): void;
  /** Sends a signal: SIGTERM to a child still starting (nothing to drain), SIGKILL past the stop timeout. */
  signal(signal: NodeJS.Signals): void;
}

/** What a child reports: it started (serves), or it exited. */
export interface ChildEvents {
  started(): void;
  exited(code: number | null, signal: NodeJS.Signals | null): void;
}

export type SpawnChild = (name: string, events: ChildEvents) => SupervisedChild;

export interface Timers {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface SupervisorSettings {
  /** Delay before the first restart after a crash; it doubles with each crash. */
  restartDelayMs: number;
  /** Ceiling of that delay. */
  restartDelayMaxMs: number;
  /** Restarts of one child allowed within the window; one crash more stops the stack. */
  restartsMax: number;
  /** The budget's window; a child up this long since its last start is restarted after the first delay again. */
  restartsWindowMs: number;
  /** How long a child may take to stop before it is killed (SIGKILL). */
  stopTimeoutMs: number;
}

export type SupervisorLog = (
  level: "info" | "warn" | "error",
  message: string,
  fields: Record<string, string | number | null>,
) => void;

export interface SupervisorOptions {
  /** In start order; stopped in the reverse order. */
  children: readonly string[];
  spawn: SpawnChild;
  settings: SupervisorSettings;
  log: SupervisorLog;
  timers?: Timers;
  /** Runs after a child crashed, before it is started again; a failure is logged and the restart goes on. */
  beforeRestart?: (name: string) => Promise<void>;
}

const realTimers: Timers = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

interface Slot {
  name: string;
  child: SupervisedChild | undefined;
  /** It reported that it started since it was last spawned. */
  started: boolean;
  /** Spawned at least once more than the first time. */
  restarts: number;
  spawnedAt: number;
  /** Times of its crashes within the current window. */
  crashes: number[];
  nextDelayMs: number;
  /** The pending restart (a timer), while one is. */
  timer: unknown;
  /** Resolves once the running child exited. */
  onExit: (() => void) | undefined;
}

/** How a child exited, as its log line says it: the signal, else the exit code. */
const how = (code: number | null, signal: NodeJS.Signals | null): string => signal ?? String(code);

export class Supervisor {
  private readonly slots: Slot[];
  private readonly timers: Timers;
  private stopping: Promise<void> | undefined;
  private resolveDone: (code: number) => void = () => undefined;
  /** The exit code of the supervisor once every child stopped: 0 when asked to stop, 1 when it gave up. */
  readonly done: Promise<number>;

  constructor(private readonly options: SupervisorOptions) {
    this.timers = options.timers ?? realTimers;
    this.slots = options.children.map((name) => ({
      name,
      child: undefined,
      started: false,
      restarts: 0,
      spawnedAt: 0,
      crashes: [],
      nextDelayMs: options.settings.restartDelayMs,
      timer: undefined,
      onExit: undefined,
    }));
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /** Starts every child, in order. */
  start(): void {
    for (const slot of this.slots) this.spawn(slot);
  }

  /** The pid of a child while it runs (tests and operators find the process to signal through the log lines). */
  pidOf(name: string): number | undefined {
    return this.slots.find((slot) => slot.name === name)?.child?.pid;
  }

  /**
   * Stops every child in the reverse order, each once the one before exited; cancels pending restarts. Every
   * call answers the same; the first one's code is the supervisor's.
   */
  stop(code: number): Promise<void> {
    if (this.stopping !== undefined) return this.stopping;
    this.stopping = (async () => {
      for (const slot of this.slots) {
        if (slot.timer !== undefined) this.timers.clearTimeout(slot.timer);
        slot.timer = undefined;
      }
      for (const slot of [...this.slots].reverse()) await this.stopChild(slot);
      this.resolveDone(code);
    })();
    return this.stopping;
  }

  private spawn(slot: Slot): void {
    slot.started = false;
    slot.spawnedAt = this.timers.now();
    let exited = false;
    const child = this.options.spawn(slot.name, {
      started: () => {
        if (exited || slot.child !== child) return;
        slot.started = true;
        this.options.log("info", `${slot.name} started`, {
          child: slot.name,
          pid: child.pid ?? null,
          restarts: slot.restarts,
        });
      },
      exited: (code, signal) => {
        if (exited) return;
        exited = true;
        slot.child = undefined;
        const onExit = slot.onExit;
        slot.onExit = undefined;
        if (onExit !== undefined || this.stopping !== undefined) {
          onExit?.();
          return;
        }
        this.crashed(slot, child.pid, code, signal);
      },
    });
    slot.child = child;
  }

  private crashed(slot: Slot, pid: number | undefined, code: number | null, signal: NodeJS.Signals | null): void {
    const { settings, log } = this.options;
    const now = this.timers.now();
    const fields = { child: slot.name, pid: pid ?? null, code, signal };
    if (now - slot.spawnedAt >= settings.restartsWindowMs) slot.nextDelayMs = settings.restartDelayMs;
    slot.crashes = slot.crashes.filter((at) => now - at < settings.restartsWindowMs);
    slot.crashes.push(now);
    if (slot.crashes.length > settings.restartsMax) {
      log(
        "error",
        `${slot.name} exited (${how(code, signal)}); restarts exhausted: ${slot.crashes.length} crashes within ` +
          `${settings.restartsWindowMs} ms, at most ${settings.restartsMax} restarts allowed (SUPERVISOR_RESTARTS_MAX); ` +
          "stopping the stack",
        { ...fields, crashes: slot.crashes.length },
      );
      void this.stop(1);
      return;
    }
    const delayMs = slot.nextDelayMs;
    slot.nextDelayMs = Math.min(delayMs * 2, settings.restartDelayMaxMs);
    log("error", `${slot.name} exited (${how(code, signal)}); restarting in ${delayMs} ms`, {
      ...fields,
      crashes: slot.crashes.length,
      delay_ms: delayMs,
    });
    slot.timer = this.timers.setTimeout(() => {
      slot.timer = undefined;
      void this.restart(slot);
    }, delayMs);
  }

  private async restart(slot: Slot): Promise<void> {
    if (this.options.beforeRestart !== undefined) {
      try {
        await this.options.beforeRestart(slot.name);
      } catch (error) {
        this.options.log("warn", `${slot.name}: preparing the restart failed; restarting anyway`, {
          child: slot.name,
          reason: error instanceof Error ? error.message : String(error),
        });
      }
    }
    if (this.stopping !== undefined) return;
    slot.restarts++;
    this.spawn(slot);
  }

  private async stopChild(slot: Slot): Promise<void> {
    const child = slot.child;
    if (child === undefined) return;
    this.options.log("info", `stopping ${slot.name}`, { child: slot.name, pid: child.pid ?? null });
    await new Promise<void>((resolve) => {
      const timer = this.timers.setTimeout(() => {
        child.signal("SIGKILL");
      }, this.options.settings.stopTimeoutMs);
      slot.onExit = () => {
        this.timers.clearTimeout(timer);
        resolve();
      };
      // A started child drains on the stop message; one still starting has nothing to drain.
      if (slot.started) child.stop();
      else child.signal("SIGTERM");
    });
  }
}

const settingsSchema = z.object({
  SUPERVISOR_RESTART_DELAY_MS: integer({ min: 0, max: 600_000 }, 500),
  SUPERVISOR_RESTART_DELAY_MAX_MS: integer({ min: 0, max: 3_600_000 }, 10_000),
  SUPERVISOR_RESTARTS_MAX: integer({ min: 0, max: 1_000 }, 5),
  SUPERVISOR_RESTARTS_WINDOW_MS: integer({ min: 1_000, max: 86_400_000 }, 60_000),
});

/** The supervisor's settings from the environment (README "Settings"); a bad one throws a ConfigError naming it. */
export function loadSupervisorSettings(env: NodeJS.ProcessEnv): SupervisorSettings {
  const parsed = parseSettings(settingsSchema, env);
  return {
    restartDelayMs: parsed.SUPERVISOR_RESTART_DELAY_MS,
    restartDelayMaxMs: Math.max(parsed.SUPERVISOR_RESTART_DELAY_MAX_MS, parsed.SUPERVISOR_RESTART_DELAY_MS),
    restartsMax: parsed.SUPERVISOR_RESTARTS_MAX,
    restartsWindowMs: parsed.SUPERVISOR_RESTARTS_WINDOW_MS,
    stopTimeoutMs: 15_000,
  };
}
