// Free loopback ports for throwaway servers started by tests.
//
// A port is chosen below the kernel's ephemeral range (net.ipv4.ip_local_port_range). A port the kernel
// hands out for `listen(0)` lies inside that range, and between the check and the server's own listen an
// outgoing connection of any process (a test's HTTP client, a database driver) can be given it as its
// local port; the server then fails with EADDRINUSE. Below the range only another explicit bind can take
// it, and every port handed out here is chosen at random and checked free first.
import { readFileSync } from "node:fs";
import net from "node:net";

/** Lowest port handed out; below it sit the well-known and registered services a machine may run. */
export const LOWEST_PORT = 10_000;
/** Linux's default start of the ephemeral range, for machines whose range cannot be read. */
const DEFAULT_EPHEMERAL_LOW = 32_768;
const ATTEMPTS = 200;

/** The first port of the kernel's ephemeral range. */
export function ephemeralLow(rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"): number {
  try {
    const low = Number(readFileSync(rangeFile, "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST_PORT ? low : DEFAULT_EPHEMERAL_LOW;
  } catch {
    return DEFAULT_EPHEMERAL_LOW;
  }
}

/** Ports this process has handed out, so two servers of one test never get the same one. */
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once("error", () => {
      resolve(false);
    });
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
}

/** A loopback port below the ephemeral range that nothing listens on and this process has not handed out. */
export function freePort(): Promise<number> {
  return freePortIn(LOWEST_PORT, ephemeralLow() - 1);
}

/** A loopback port in low..high (inclusive) that nothing listens on and this process has not handed out. */
export async function freePortIn(low: number, high: number): Promise<number> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port in ${String(low)}-${String(high)} after ${String(ATTEMPTS)} tries`);
}

export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => {
        resolve(false);
      });
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`port ${port} did not open within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
