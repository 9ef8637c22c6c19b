// `npm start`: runs wallet, engine and gateway as child processes on the embedded defaults. Without
// DATABASE_URL this supervisor hosts the embedded PGlite database and hands its URL to the children.
// SIGINT/SIGTERM stop the gateway first (draining requests), then the services, then the database. The
// children leave signals to this process (a Ctrl-C reaches the whole group at once): each stops when told to
// over its IPC channel, or when this process is gone. A child that crashes is started again with backoff, within
// a budget of restarts (scripts/supervisor.ts; docs/runbook.md, "npm start: supervision"); the database, hosted
// here, stays up meanwhile. Without INTERNAL_TOKEN it mints one for the processes it starts, so no other local
// process can call their gRPC; it is never printed (README "Settings").
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres, sqlStateOf, type EmbeddedPostgres } from "../kernel/db.js";
import { loaderArgs, siblingModule } from "../kernel/module-file.js";
import { STOP_MESSAGE, SUPERVISED_ENV, isStartedMessage } from "../kernel/process.js";
import { Supervisor, loadSupervisorSettings, type SpawnChild, type SupervisorLog } from "./supervisor.js";

/** In start order: each serves what the next one calls. */
const SERVICES = ["wallet", "engine", "gateway"] as const;

const log: SupervisorLog = (level, message, fields) => {
  process.stdout.write(
    JSON.stringify({ level, time: new Date().toISOString(), service: "supervisor", ...fields, msg: message }) + "\n",
  );
};

/**
 * Lets a killed engine's partition leases go, so its successor takes them at once instead of waiting out
 * ENGINE_LEASE_TTL_MS (docs/scale-out.md, "The lease"). Only on the embedded database: it is served by this
 * process alone, on a socket only this user may open, so the engine this process started is the only engine on it,
 * and that engine has exited. Its appends still in the database's queue are refused by the fence (the leases
 * expired). A database without the leases' table yet (the engine died before migrating) has nothing to let go.
 */
async function releaseDeadEngineLeases(url: string, engineIndex: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `UPDATE engine_partition_leases SET expires_at = now() WHERE expires_at > now() AND owner LIKE $1`,
      [`engine-${engineIndex}-%`],
    );
  } catch (error) {
    // undefined_table: the engine died before its migrations created the leases.
    if (sqlStateOf(error) !== "42P01") throw error;
  } finally {
    await client.end();
  }
}

/** The children as node processes with an IPC channel, each in this process's form (tsx sources or the build). */
function spawnService(env: NodeJS.ProcessEnv): SpawnChild {
  return (name, events) => {
    const main = siblingModule(import.meta.url, `../${name}/main`);
    const child = spawn(process.execPath, [...loaderArgs(import.meta.url), main], {
      env: { ...env, [SUPERVISED_ENV]: "1" },
      stdio: ["inherit", "inherit", "inherit", "ipc"],
    });
    child.on("message", (message: unknown) => {
      if (isStartedMessage(message)) events.started();
    });
    child.once("exit", (code, signal) => {
      events.exited(code, signal);
    });
    // A failed spawn emits "error" (and "exit" only if the process ran): it ends as an exit code of its own.
    child.once("error", () => {
      events.exited(child.exitCode ?? 127, child.signalCode);
    });
    return {
      pid: child.pid,
      // The child ignores signals while supervised (kernel/process.ts): it stops on this message, or when this
      // channel closes.
      stop: () => {
        if (child.connected) child.send(STOP_MESSAGE);
        else child.kill("SIGTERM");
      },
      signal: (signal) => {
        child.kill(signal);
      },
    };
  };
}

async function main(): Promise<void> {
  const settings = loadSupervisorSettings(process.env);
  let embedded: EmbeddedPostgres | undefined;
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (env.INTERNAL_TOKEN === undefined || env.INTERNAL_TOKEN === "")
    env.INTERNAL_TOKEN = randomBytes(32).toString("base64url");
  // One gateway and no load balancer to route away from it: its drain phase would only delay every stop.
  if (env.GATEWAY_DRAIN_DELAY_MS === undefined || env.GATEWAY_DRAIN_DELAY_MS === "") env.GATEWAY_DRAIN_DELAY_MS = "0";
  if (env.DATABASE_URL === undefined || env.DATABASE_URL === "") {
    embedded = await startEmbeddedPostgres(env.DATA_DIR ?? "./data");
    env.DATABASE_URL = embedded.url;
    log("info", `embedded PGlite database in ${path.resolve(env.DATA_DIR ?? "./data")}`, {});
  }
  const databaseUrl = env.DATABASE_URL;
  const engineIndex = env.ENGINE_INDEX === undefined || env.ENGINE_INDEX === "" ? "0" : env.ENGINE_INDEX;

  const supervisor = new Supervisor({
    children: SERVICES,
    spawn: spawnService(env),
    settings,
    log,
    beforeRestart: async (name) => {
      if (name === "engine" && embedded !== undefined) await releaseDeadEngineLeases(databaseUrl, engineIndex);
    },
  });
  let signalled = false;
  const onSignal = (): void => {
    if (signalled) return;
    signalled = true;
    log("info", "stopping", {});
    void supervisor.stop(0);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  supervisor.start();

  const code = await supervisor.done;
  await embedded?.stop();
  log("info", "stopped", {});
  process.exit(code);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`supervisor: failed to start: ${message}\n`);
  process.exit(1);
});
