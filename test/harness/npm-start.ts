// `npm start` (scripts/start.ts) as a test runs it: fresh ports, a DATA_DIR of its own (or a given one, to
// start again on the same data), its output collected and its exit recorded.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LogLines } from "./log-lines.js";
import { freePort } from "./ports.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Polls `check` until it holds; fails at the deadline, or at once when `failed` names a reason (the stack
 * exited before it was ready), with the reason and the stack's output in the error.
 */
export async function until(
  check: () => Promise<boolean>,
  timeoutMs: number,
  failed: () => string | undefined,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    const reason = failed() ?? (Date.now() > deadline ? `not ready within ${String(timeoutMs)} ms` : undefined);
    if (reason !== undefined) throw new Error(`${reason}; its output:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface LaunchOptions {
  env?: Record<string, string>;
  /** In a process group of its own, as a shell starts a foreground job (so a test can signal the group). */
  detached?: boolean;
  /** Start on this DATA_DIR (default: a fresh one). */
  dataDir?: string;
  /**
   * The supervisor to run: node's arguments and the folder it runs in (default: scripts/start.ts through tsx
   * in the repository, as `npm start` runs it).
   */
  supervisor?: { args: string[]; cwd: string };
}

export type NpmStart = Awaited<ReturnType<typeof launchNpmStart>>;

/** `npm start` on fresh ports, with its output collected and its exit recorded. */
export async function launchNpmStart(options: LaunchOptions = {}) {
  const extraEnv = options.env ?? {};
  const detached = options.detached ?? false;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "fts-start-"));
  const ports = {
    HTTP_PORT: await freePort(),
    WALLET_HTTP_PORT: await freePort(),
    ENGINE_GRPC_PORT: await freePort(),
    WALLET_GRPC_PORT: await freePort(),
    ENGINE_METRICS_PORT: await freePort(),
    WALLET_METRICS_PORT: await freePort(),
  };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    ...extraEnv,
  };
  for (const [name, value] of Object.entries(ports)) env[name] = String(value);
  const supervisor = options.supervisor ?? { args: ["--import", "tsx", "scripts/start.ts"], cwd: ROOT };
  const child = spawn(process.execPath, supervisor.args, {
    cwd: supervisor.cwd,
    env,
    stdio: "pipe",
    detached,
  });
  const stack = {
    child,
    ports,
    dataDir,
    output: "",
    /** Its output line by line (every process of the stack writes to the supervisor's stdout and stderr). */
    lines: new LogLines(),
    exitCode: undefined as number | null | undefined,
    v1Base: `http://127.0.0.1:${String(ports.HTTP_PORT)}`,
    api: `http://127.0.0.1:${String(ports.WALLET_HTTP_PORT)}`,
    exited: undefined as unknown as Promise<number | null>,
    /** Resolves once both listeners are ready; fails with the output if the stack exits first or takes 60 s. */
    ready: () =>
      until(
        async () => (await fetch(`${stack.v1Base}/readyz`)).ok && (await fetch(`${stack.api}/readyz`)).ok,
        60_000,
        () =>
          stack.exitCode === undefined ? undefined : `npm start exited with ${String(stack.exitCode)} before ready`,
        () => stack.output,
      ),
  };
  child.stdout.on("data", (chunk: Buffer) => (stack.output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stack.output += chunk.toString()));
  stack.lines.watch("npm start", child.stdout);
  stack.lines.watch("npm start", child.stderr);
  stack.exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      stack.exitCode = code;
      resolve(code);
    }),
  );
  return stack;
}

export interface ServingNpmStart {
  /** The one gateway's listeners, in the shape of test/harness/stack.ts's gateways. */
  gateways: { v1: string; api: string }[];
  /** The engine's gRPC address (market data when PRICE_FEED=push). */
  engineGrpc: string;
  /** The INTERNAL_TOKEN its gRPC asks for (npm start would mint one of its own, unknown to the test). */
  internalToken: string;
  /**
   * Stops the whole stack (SIGTERM to the supervisor) and removes its DATA_DIR; then rejects, naming the key and
   * line, if a JSON log line it printed wrote a key twice.
   */
  stop(): Promise<void>;
}

/** Waits for a launched stack to serve; one that does not is killed (SIGKILL) before the failure is thrown. */
export async function readyOrKill(stack: NpmStart): Promise<void> {
  try {
    await stack.ready();
  } catch (error) {
    stack.child.kill("SIGKILL");
    await stack.exited;
    throw error;
  }
}

/**
 * `npm start` on fresh ports and a fresh DATA_DIR, resolved once it serves; `env` adds settings. It runs with
 * an INTERNAL_TOKEN of the test's, so the test can call the gRPC (market.v1 pushes).
 */
export async function servingNpmStart(env: Record<string, string> = {}): Promise<ServingNpmStart> {
  const internalToken = env.INTERNAL_TOKEN ?? randomBytes(24).toString("base64url");
  const stack = await launchNpmStart({ env: { ...env, INTERNAL_TOKEN: internalToken } });
  const stop = async (): Promise<void> => {
    if (stack.exitCode === undefined) {
      stack.child.kill("SIGTERM");
      await stack.exited;
    }
    rmSync(stack.dataDir, { recursive: true, force: true });
    stack.lines.assertEachKeyOnce();
  };
  await readyOrKill(stack);
  return {
    gateways: [{ v1: stack.v1Base, api: stack.api }],
    engineGrpc: `127.0.0.1:${String(stack.ports.ENGINE_GRPC_PORT)}`,
    internalToken,
    stop,
  };
}

/** The JSON lines the supervisor itself printed (service "supervisor"), parsed, in order. */
export function supervisorLines(stack: NpmStart): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  for (const { line } of stack.lines.printed) {
    if (!line.startsWith('{"level"')) continue;
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (parsed.service === "supervisor") found.push(parsed);
    } catch {
      // not a JSON line
    }
  }
  return found;
}

/**
 * The pid and restart count of a child of the supervisor as of its latest `"<child> started"` line
 * (docs/runbook.md, "npm start: supervision"), once it has started more than `afterRestarts` times after its
 * first start (default: once it started at all).
 */
export async function startedChild(
  stack: NpmStart,
  child: string,
  afterRestarts = -1,
): Promise<{ pid: number; restarts: number }> {
  const find = (): Record<string, unknown> | undefined =>
    supervisorLines(stack)
      .filter((line) => line.msg === `${child} started` && Number(line.restarts) > afterRestarts)
      .at(-1);
  await until(
    () => Promise.resolve(find() !== undefined),
    60_000,
    () => (stack.exitCode === undefined ? undefined : `npm start exited with ${String(stack.exitCode)}`),
    () => stack.output,
  );
  const line = find();
  return { pid: Number(line?.pid), restarts: Number(line?.restarts) };
}
