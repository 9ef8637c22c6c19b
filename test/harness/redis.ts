// Throwaway redis-server on a random loopback port. Fails loudly (never skips) when the binary is missing.
// `cluster: true` starts it in cluster mode, one node holding every slot: a command whose keys hash to different
// slots is refused with CROSSSLOT, as on a real Redis Cluster. `port` restarts a stopped server where it was;
// `pause` freezes the process (SIGSTOP: connections stay open, nothing is answered) until `resume`.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { freePort, waitForPort } from "./ports.js";

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  pause(): void;
  resume(): void;
}

export interface RedisServerOptions {
  cluster?: boolean;
  port?: number;
}

function findRedis(): string {
  for (const candidate of ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error("redis-server not found: install it (apt-get install -y redis-server); Redis tests never skip");
}

export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = findRedis();
  const port = options.port ?? (await freePort());
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const dir = options.cluster === true ? mkdtempSync(path.join(tmpdir(), "redis-cluster-")) : undefined;
  if (dir !== undefined) args.push("--cluster-enabled", "yes", "--dir", dir, "--cluster-config-file", "nodes.conf");
  const child = spawn(binary, args, { stdio: "ignore" });
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  await waitForPort(port, 10_000);
  const url = `redis://127.0.0.1:${port}`;
  if (dir !== undefined) await claimEverySlot(url);
  return {
    url,
    port,
    pause() {
      child.kill("SIGSTOP");
    },
    resume() {
      child.kill("SIGCONT");
    },
    async stop() {
      if (!exited) child.kill("SIGCONT");
      if (!exited) {
        await new Promise<void>((resolve) => {
          child.once("exit", () => {
            resolve();
          });
          child.kill("SIGKILL");
        });
      }
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Gives the single node every slot and waits until it reports the cluster up. */
async function claimEverySlot(url: string): Promise<void> {
  const admin = new Redis(url, { lazyConnect: true });
  try {
    await admin.connect();
    await admin.call("CLUSTER", "ADDSLOTSRANGE", "0", "16383");
    const deadline = Date.now() + 10_000;
    while (!String(await admin.call("CLUSTER", "INFO")).includes("cluster_state:ok")) {
      if (Date.now() > deadline) throw new Error("the one-node Redis cluster did not come up");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    admin.disconnect();
  }
}
