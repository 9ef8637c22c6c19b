// The processes of a test stack (test/harness/stack.ts): each started with tsx from the repository root, with
// everything it prints kept (stdout and stderr, in order, and line by line for test/harness/log-lines.ts), and
// its "… listening" log line (with the ports it bound) awaited; stopped with SIGTERM, SIGKILL after 10 s.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LogLines } from "./log-lines.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface Started {
  child: ChildProcess;
  name: string;
  /** The process's "… listening" log line (with the ports it bound); rejects if it exits first. */
  listening: Promise<Record<string, unknown>>;
}

/** Polls `url` every 100 ms until it answers 2xx; fails after `timeoutMs`, with `describe()` in the message. */
export async function waitHttp(url: string, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready within ${timeoutMs} ms\n${describe()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A number field of a "… listening" line. */
export function portOf(line: Record<string, unknown>, field: string): number {
  const value = line[field];
  if (typeof value !== "number") throw new Error(`no ${field} in ${JSON.stringify(line)}`);
  return value;
}

/** Whether the process has exited. */
export const exited = ({ child }: Started): boolean => child.exitCode !== null || child.signalCode !== null;

/** Stops `which` with SIGTERM (SIGKILL after 10 s) and resolves once all exited. */
export async function stopProcesses(which: Started[]): Promise<void> {
  await Promise.all(
    which.map(
      (started) =>
        new Promise<void>((resolve) => {
          if (exited(started)) {
            resolve();
            return;
          }
          const timer = setTimeout(() => started.child.kill("SIGKILL"), 10_000);
          started.child.once("exit", () => {
            clearTimeout(timer);
            resolve();
          });
          started.child.kill("SIGTERM");
        }),
    ),
  );
}

/** Sends `signal` and resolves with the exit code (null when killed by a signal) once the process exited. */
export function signalProcess(started: Started, signal: NodeJS.Signals): Promise<number | null> {
  if (exited(started)) return Promise.resolve(started.child.exitCode);
  return new Promise<number | null>((resolve) => {
    started.child.once("exit", (code) => {
      resolve(code);
    });
    started.child.kill(signal);
  });
}

/** Every process a stack started, and what they printed. */
export class Processes {
  readonly started: Started[] = [];
  readonly lines = new LogLines();
  private readonly chunks: string[] = [];

  /** Everything every process wrote to stdout and stderr so far. */
  output(): string {
    return this.chunks.join("");
  }

  /** Forgets a process (one restarted under the same name). */
  forget(which: Started): void {
    const at = this.started.indexOf(which);
    if (at >= 0) this.started.splice(at, 1);
  }

  launch(name: string, entry: string, env: Record<string, string>): Started {
    // STACK_NODE_ARGS adds node flags to every process, for profiling a benchmark's stack
    // (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"; NODE_OPTIONS does not allow --cpu-prof).
    const extra = (process.env.STACK_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "");
    const child = spawn(process.execPath, [...extra, "--import", "tsx", path.join(ROOT, entry)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "info", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Processes other than the engines bind port 0 and log the ports they got: no window in which another
    // process takes a port.
    let announce: (line: Record<string, unknown>) => void = () => undefined;
    let fail: (error: Error) => void = () => undefined;
    const listening = new Promise<Record<string, unknown>>((resolve, reject) => {
      announce = resolve;
      fail = reject;
    });
    child.stdout?.on("data", (chunk: Buffer) => this.chunks.push(chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => this.chunks.push(chunk.toString("utf8")));
    this.lines.watch(name, child.stdout, (line) => {
      if (!line.includes("listening")) return;
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (typeof parsed.msg === "string" && parsed.msg.endsWith("listening")) announce(parsed);
      } catch {
        // not a JSON log line
      }
    });
    this.lines.watch(name, child.stderr);
    child.once("exit", (code, signal) => {
      fail(new Error(`${name} exited (${signal ?? String(code)}) before listening\n${this.output()}`));
    });
    const silence = setTimeout(() => {
      fail(new Error(`${name} did not announce "… listening" within 120 s\n${this.output()}`));
    }, 120_000);
    silence.unref();
    const settle = (): void => {
      clearTimeout(silence);
    };
    void listening.then(settle, settle);
    // Marked handled: a process stopped before it announced itself must not surface as an unhandled rejection.
    listening.catch(() => undefined);
    const entryStarted: Started = { child, name, listening };
    this.started.push(entryStarted);
    return entryStarted;
  }
}
