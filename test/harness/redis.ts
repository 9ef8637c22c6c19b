// Throwaway redis-server on a random loopback port. Fails loudly (never skips) when the binary is missing.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort, waitForPort } from "./ports.js";

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

function findRedis(): string {
  for (const candidate of ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error("redis-server not found: install it (apt-get install -y redis-server); Redis tests never skip");
}

export async function startRedis(): Promise<RedisServer> {
  const binary = findRedis();
  const port = await freePort();
  const child = spawn(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  await waitForPort(port, 10_000);
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (exited) return;
      await new Promise<void>((resolve) => {
        child.once("exit", () => {
          resolve();
        });
        child.kill("SIGKILL");
      });
    },
  };
}
