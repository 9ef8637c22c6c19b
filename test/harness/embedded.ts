// The embedded default database in a process of its own (scripts/embedded-database.ts), as `npm start`'s
// supervisor hosts it: for tests that kill it and for benchmarks that must not share its event loop.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface EmbeddedDatabaseProcess {
  url: string;
  child: ChildProcess;
  /** SIGTERM (or `signal`), resolved once the process exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts the database on `dataDir` and resolves with its URL once it listens. */
export async function startEmbeddedDatabaseProcess(dataDir: string): Promise<EmbeddedDatabaseProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "embedded-database.ts")], {
    env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      resolve();
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n").find((l) => l.includes("listening"));
      if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once("exit", (code) => {
      reject(new Error(`the embedded database exited (${String(code)}) before it listened`));
    });
  });
  return {
    url,
    child,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
