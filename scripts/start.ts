// `npm start`: runs wallet, engine and gateway as child processes on the embedded defaults. Without
// DATABASE_URL this supervisor hosts the embedded PGlite database and hands its URL to the children.
// SIGINT/SIGTERM stop the gateway first (draining requests), then the services, then the database. The
// children leave signals to this process (a Ctrl-C reaches the whole group at once): each stops when told to
// over its IPC channel, or when this process is gone. Without INTERNAL_TOKEN it mints one for the processes it
// starts, so no other local process can call their gRPC; it is never printed (README "Settings").
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../kernel/db.js";
import { loaderArgs, siblingModule } from "../kernel/module-file.js";
import { STOP_MESSAGE, SUPERVISED_ENV } from "../kernel/process.js";

const SERVICES = ["wallet", "engine", "gateway"] as const;
type ServiceName = (typeof SERVICES)[number];

function log(message: string): void {
  process.stdout.write(
    JSON.stringify({ level: "info", time: new Date().toISOString(), service: "supervisor", msg: message }) + "\n",
  );
}

async function main(): Promise<void> {
  let embedded: EmbeddedPostgres | undefined;
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (env.INTERNAL_TOKEN === undefined || env.INTERNAL_TOKEN === "")
    env.INTERNAL_TOKEN = randomBytes(32).toString("base64url");
  if (env.DATABASE_URL === undefined || env.DATABASE_URL === "") {
    embedded = await startEmbeddedPostgres(env.DATA_DIR ?? "./data");
    env.DATABASE_URL = embedded.url;
    log(`embedded PGlite database in ${path.resolve(env.DATA_DIR ?? "./data")}`);
  }

  const children = new Map<ServiceName, ChildProcess>();
  let stopping = false;

  const stopAll = async (code: number): Promise<never> => {
    stopping = true;
    for (const name of ["gateway", "engine", "wallet"] as const) {
      const child = children.get(name);
      if (child === undefined || child.exitCode !== null || child.signalCode !== null) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        // The child ignores signals while supervised (kernel/process.ts): it stops on this message, or when
        // this channel closes.
        if (child.connected) child.send(STOP_MESSAGE);
        else child.kill("SIGTERM");
      });
    }
    await embedded?.stop();
    log("stopped");
    process.exit(code);
  };

  for (const name of SERVICES) {
    // The children run in this process's form: the sources through tsx, or the compiled build as it is.
    const main = siblingModule(import.meta.url, `../${name}/main`);
    const child = spawn(process.execPath, [...loaderArgs(import.meta.url), main], {
      env: { ...env, [SUPERVISED_ENV]: "1" },
      stdio: ["inherit", "inherit", "inherit", "ipc"],
    });
    children.set(name, child);
    child.once("exit", (code, signal) => {
      if (stopping) return;
      log(`${name} exited (${signal ?? String(code)}); stopping the stack`);
      void stopAll(1);
    });
  }

  const onSignal = (): void => {
    if (stopping) return;
    log("stopping");
    void stopAll(0);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

main().catch((error: unknown) => {
  process.stderr.write(`supervisor: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
