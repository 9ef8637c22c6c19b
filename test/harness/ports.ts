// Free loopback ports for throwaway servers started by tests.
//
// A port is chosen outside the kernel's ephemeral range (net.ipv4.ip_local_port_range), below it where there
// is room. A port the kernel hands out for `listen(0)` lies inside that range, and between the check and the
// server's own listen an outgoing connection of any process (a test's HTTP client, a database driver) can be
// given it as its local port; the server then fails with EADDRINUSE. Outside the range only another explicit
// bind can take it, and every port handed out here is chosen at random and checked free first.
import { readFileSync } from "node:fs";
import net from "node:net";

/** Lowest port handed out; below it sit the well-known and registered services a machine may run. */
export const LOWEST_PORT = 10_000;
/** Linux's default ephemeral range, for machines whose range cannot be read. */
const DEFAULT_EPHEMERAL: readonly [number, number] = [32_768, 60_999];
/** Fewest ports a range outside the ephemeral one must hold to be used. */
const ROOM = 1_000;
const ATTEMPTS = 200;

/** The kernel's ephemeral range [low, high]. */
export function ephemeralRange(rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"): readonly [number, number] {
  try {
    const [low, high] = readFileSync(rangeFile, "utf8").trim().split(/\s+/).map(Number);
    const valid = (port: number | undefined): port is number =>
      port !== undefined && Number.isInteger(port) && port > 0 && port <= 65_535;
    return valid(low) && valid(high) && low <= high ? [low, high] : DEFAULT_EPHEMERAL;
  } catch {
    return DEFAULT_EPHEMERAL;
  }
}

/**
 * Where test ports come from: below the ephemeral range when it leaves room there, else above it; a machine
 * whose ephemeral range leaves room on neither side is refused loudly rather than given ports an outgoing
 * connection may take.
 */
export function testPortRange([low, high]: readonly [number, number]): readonly [number, number] {
  if (low - 1 - LOWEST_PORT >= ROOM) return [LOWEST_PORT, low - 1];
  const above = Math.max(high + 1, LOWEST_PORT);
  if (65_535 - above >= ROOM) return [above, 65_535];
  throw new Error(
    `the ephemeral port range ${String(low)}-${String(high)} leaves no room for test ports; narrow net.ipv4.ip_local_port_range`,
  );
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

/** A loopback port outside the ephemeral range that nothing listens on and this process has not handed out. */
export function freePort(): Promise<number> {
  const [low, high] = testPortRange(ephemeralRange());
  return freePortIn(low, high);
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
