// Throwaway PostgreSQL cluster on a random loopback port, one per test file.
// PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres` user in a directory it owns.
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, waitForPort } from "./ports.js";

export interface PostgresServer {
  url: string;
  stop(): Promise<void>;
}

function findBinDir(): string {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(path.join(root, v, "bin", "postgres")))
      .sort((a, b) => Number(b) - Number(a));
    const newest = versions[0];
    if (newest !== undefined) return path.join(root, newest, "bin");
  }
  throw new Error(
    "PostgreSQL binaries not found under /usr/lib/postgresql: apt-get install -y postgresql; tests never skip",
  );
}

function asPostgres(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() === 0) return ["runuser", ["-u", "postgres", "--", command, ...args]];
  return [command, args];
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = findBinDir();
  const dir = mkdtempSync(path.join(tmpdir(), "fts-pg-"));
  const dataDir = path.join(dir, "data");
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  const [initCmd, initArgs] = asPostgres(path.join(bin, "initdb"), [
    "-D",
    dataDir,
    "-U",
    "postgres",
    "--auth=trust",
    "--no-sync",
    "-E",
    "UTF8",
    "--locale=C",
  ]);
  execFileSync(initCmd, initArgs, { stdio: "ignore" });
  const port = await freePort();
  const [cmd, args] = asPostgres(path.join(bin, "postgres"), [
    "-D",
    dataDir,
    "-p",
    String(port),
    "-h",
    "127.0.0.1",
    "-k",
    dir,
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "max_connections=200",
  ]);
  // Its own process group, so stop() reaches postgres itself and not only runuser.
  const child = spawn(cmd, args, { stdio: "ignore", detached: true });
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  await waitForPort(port, 30_000);
  // The port opens slightly before the server accepts queries; wait until it does.
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const { default: pg } = await import("pg");
  for (let attempt = 0; ; attempt++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query("select 1");
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (attempt > 100) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async stop() {
      if (!exited) {
        await new Promise<void>((resolve) => {
          child.once("exit", () => {
            resolve();
          });
          if (child.pid === undefined) child.kill("SIGKILL");
          else process.kill(-child.pid, "SIGKILL");
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
