import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ephemeralRange, freePort, freePortIn, LOWEST_PORT, testPortRange } from "./ports.js";

const dir = mkdtempSync(path.join(tmpdir(), "fts-ports-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function rangeFile(text: string): string {
  const file = path.join(dir, `range-${String(Math.random()).slice(2)}`);
  writeFileSync(file, text);
  return file;
}

function listenOn(server: net.Server, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    server.once("error", () => {
      resolve(false);
    });
    server.listen(port, "127.0.0.1", () => {
      resolve(true);
    });
  });
}

/** Whether a server can listen on the port (it is closed again at once). */
async function closes(port: number): Promise<boolean> {
  const probe = net.createServer();
  const bound = await listenOn(probe, port);
  if (bound) await new Promise((resolve) => probe.close(resolve));
  return bound;
}

describe("ephemeralRange and testPortRange", () => {
  it("reads the kernel's range", () => {
    expect(ephemeralRange(rangeFile("32768\t60999\n"))).toEqual([32_768, 60_999]);
    expect(ephemeralRange(rangeFile("40000 50000"))).toEqual([40_000, 50_000]);
  });

  it("falls back to Linux's default when the range is missing or garbled", () => {
    for (const file of [path.join(dir, "missing"), rangeFile("not a range"), rangeFile("50000 40000")]) {
      expect(ephemeralRange(file)).toEqual([32_768, 60_999]);
    }
  });

  it("takes test ports below the ephemeral range, above it when there is no room below, and refuses neither", () => {
    expect(testPortRange([32_768, 60_999])).toEqual([LOWEST_PORT, 32_767]);
    expect(testPortRange([1_024, 60_999])).toEqual([61_000, 65_535]);
    expect(testPortRange([10_500, 50_000])).toEqual([50_001, 65_535]);
    expect(() => testPortRange([1_024, 65_000])).toThrow(/leaves no room for test ports/);
  });
});

describe("freePort", () => {
  it("skips a port something else listens on, and one it has handed out", async () => {
    // Two neighbours below the ephemeral range, neither handed out yet: one taken by a server, one free.
    // This test runs first in its file, so this process has handed out nothing yet.
    const taken = net.createServer();
    let port = LOWEST_PORT + 1 + Math.floor(Math.random() * 10_000);
    while (!((await listenOn(taken, port)) && (await closes(port + 1)))) {
      if (taken.listening) await new Promise((resolve) => taken.close(resolve));
      port += 2;
    }
    try {
      const free = await freePortIn(port, port + 1);
      expect(free).toBe(port + 1);
      await expect(freePortIn(port, port + 1)).rejects.toThrow(/no free loopback port/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
  it("hands out distinct ports outside the ephemeral range that a server can listen on", async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    const servers: net.Server[] = [];
    try {
      for (const port of ports) {
        const [low, high] = ephemeralRange();
        expect(port < low || port > high).toBe(true);
        expect(port).toBeGreaterThanOrEqual(LOWEST_PORT);
        const server = net.createServer();
        servers.push(server);
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(port, "127.0.0.1", resolve);
        });
      }
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });
});
