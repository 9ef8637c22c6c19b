// `npm start` on the embedded defaults: one supervisor, three processes, both listeners served, clean stop.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { launchNpmStart } from "../harness/npm-start.js";
import { newKey, request, v1 } from "../harness/client.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The status of a unary call with an empty request and no metadata (no internal token). */
function callWithoutToken(target: string, method: string): Promise<grpc.StatusObject["code"] | "ok"> {
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  const bytes = (value: Buffer): Buffer => value;
  return new Promise((resolve) => {
    client.makeUnaryRequest(method, bytes, bytes, Buffer.alloc(0), new grpc.Metadata(), (error) => {
      client.close();
      resolve(error === null ? "ok" : error.code);
    });
  });
}

describe("npm start", () => {
  // The test's own timeout leaves room for the 60 s readiness wait to fail with the stack's output.
  it("serves /api and /v1 on the embedded defaults and stops cleanly on SIGTERM", { timeout: 90_000 }, async () => {
    const stack = await launchNpmStart();
    const { ports, v1Base, api } = stack;
    try {
      await stack.ready();
      for (const base of [v1Base, api]) expect((await request(`${base}/healthz`)).body).toEqual({ status: "ok" });
      const key = await newKey(api, "starter");
      const tickers = await v1(v1Base, "/v1/tickers", key);
      expect(tickers.status).toBe(200);
      expect((tickers.body.data as unknown[]).length).toBeGreaterThanOrEqual(20);
      for (const port of [ports.ENGINE_METRICS_PORT, ports.WALLET_METRICS_PORT]) {
        expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toContain("process_cpu_seconds_total");
      }
      expect(await (await fetch(`${api}/metrics`)).text()).toContain("http_requests_total");
      // Without INTERNAL_TOKEN, npm start minted one for its processes: another local process calling their
      // gRPC without it is refused, while the REST API above served.
      const wallet = `127.0.0.1:${String(ports.WALLET_GRPC_PORT)}`;
      const engine = `127.0.0.1:${String(ports.ENGINE_GRPC_PORT)}`;
      expect(await callWithoutToken(wallet, "/wallet.v1.Wallet/ListApiKeys")).toBe(grpc.status.UNAUTHENTICATED);
      expect(await callWithoutToken(engine, "/engine.v1.Engine/ListTickers")).toBe(grpc.status.UNAUTHENTICATED);
      expect(stack.output).not.toMatch(/INTERNAL_TOKEN|Bearer/);
    } finally {
      stack.child.kill("SIGTERM");
      const code = await stack.exited;
      rmSync(stack.dataDir, { recursive: true, force: true });
      expect(code, stack.output).toBe(0);
      stack.lines.assertEachKeyOnce();
    }
  });

  // Ctrl-C in a terminal sends SIGINT to the whole process group at once; the supervisor must still stop the
  // gateway first. A request held by the rate limiter (1 per 3 s, held up to 2.9 s) is in flight at the signal.
  it("drains a request in flight when SIGINT reaches the whole group (Ctrl-C)", { timeout: 90_000 }, async () => {
    // Its own process group, as a shell gives a foreground job, so the test can signal the group.
    const stack = await launchNpmStart({
      env: { RATE_LIMIT_MAX: "1", RATE_LIMIT_WINDOW_MS: "3000", RATE_LIMIT_MAX_DELAY_MS: "2900" },
      detached: true,
    });
    const { v1Base, api } = stack;
    const pid = stack.child.pid;
    if (pid === undefined) throw new Error("npm start did not start");
    try {
      await stack.ready();
      const key = await newKey(api, "ctrl-c");
      expect((await v1(v1Base, "/v1/tickers", key)).status).toBe(200);
      // The next request, half a second later, waits ~2.5 s for the window (at most 2.9 s may be waited; any
      // sooner would be a 429): in flight when the group gets SIGINT.
      await new Promise((r) => setTimeout(r, 500));
      const held = v1(v1Base, "/v1/tickers", key);
      await new Promise((r) => setTimeout(r, 400));
      process.kill(-pid, "SIGINT");
      const answer = await held;
      expect(answer.status, stack.output).toBe(200);
      expect((answer.body.data as unknown[]).length).toBeGreaterThanOrEqual(20);
      expect(await stack.exited, stack.output).toBe(0);
    } finally {
      if (stack.exitCode === undefined) process.kill(-pid, "SIGKILL");
      rmSync(stack.dataDir, { recursive: true, force: true });
    }
  });

  it.each([
    ["gateway/main.ts", { HTTP_PORT: "eighty" }, "HTTP_PORT"],
    ["gateway/main.ts", { TRUSTED_PROXIES: "10.0.0.0/99" }, "TRUSTED_PROXIES"],
    ["wallet/main.ts", { DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    ["wallet/main.ts", { WEBHOOK_MASTER_KEY: "short" }, "WEBHOOK_MASTER_KEY"],
    ["engine/main.ts", { PRICE_FEED: "magic" }, "PRICE_FEED"],
    ["engine/main.ts", { LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    // Beyond loopback without the secrets that close the listeners (kernel/listen-guard.ts).
    ["wallet/main.ts", { HOST: "0.0.0.0" }, "INTERNAL_TOKEN: required when HOST (0.0.0.0) is not loopback"],
    ["engine/main.ts", { HOST: "0.0.0.0" }, "INTERNAL_TOKEN: required when HOST (0.0.0.0) is not loopback"],
    ["gateway/main.ts", { HOST: "::" }, "INTERNAL_TOKEN: required when HOST (::) is not loopback"],
    [
      "gateway/main.ts",
      { HOST: "0.0.0.0", INTERNAL_TOKEN: "0123456789abcdef0123" },
      "WALLET_ADMIN_TOKEN: required when HOST (0.0.0.0) is not loopback",
    ],
  ])("%s stops at start with a message naming a bad setting (%j)", async (entry, env, name) => {
    const child = spawn(process.execPath, ["--import", "tsx", entry], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: "pipe",
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) =>
      child.once("exit", (c) => {
        resolve(c);
      }),
    );
    expect(code).toBe(1);
    expect(stderr).toContain(name);
  });

  it("starts open beyond loopback with ALLOW_INSECURE_LISTEN=true, and says so at error level", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "gateway/main.ts"], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOST: "0.0.0.0",
        HTTP_PORT: "0",
        WALLET_HTTP_PORT: "0",
        ALLOW_INSECURE_LISTEN: "true",
        WALLET_GRPC_TARGET: "127.0.0.1:1",
        ENGINE_GRPC_TARGET: "127.0.0.1:1",
      },
      stdio: "pipe",
    });
    let stdout = "";
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no warning within 30 s:\n${stdout}`));
        }, 30_000);
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          const found = stdout
            .split("\n")
            .filter((l) => l.startsWith("{"))
            .map((l) => JSON.parse(l) as Record<string, unknown>)
            .find((l) => String(l.msg).startsWith("ALLOW_INSECURE_LISTEN=true"));
          if (found !== undefined) {
            clearTimeout(timer);
            resolve(found);
          }
        });
      });
      expect(line.level).toBe("error");
      expect(line.missing).toEqual(["INTERNAL_TOKEN", "WALLET_ADMIN_TOKEN"]);
      expect(String(line.msg)).toContain("listening on 0.0.0.0 without INTERNAL_TOKEN and WALLET_ADMIN_TOKEN");
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  });
});
