import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ephemeralLow, freePort, freePortIn, LOWEST_PORT } from "./ports.js";

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

describe("ephemeralLow", () => {
  it("reads the first port of the kernel's range", () => {
    expect(ephemeralLow(rangeFile("32768\t60999\n"))).toBe(32_768);
    expect(ephemeralLow(rangeFile("40000 50000"))).toBe(40_000);
  });

  it("falls back to Linux's default when the range is missing, garbled or leaves nothing above the lowest port", () => {
    expect(ephemeralLow(path.join(dir, "missing"))).toBe(32_768);
    expect(ephemeralLow(rangeFile("not a range"))).toBe(32_768);
    expect(ephemeralLow(rangeFile(`${String(LOWEST_PORT)} 60999`))).toBe(32_768);
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
  it("hands out distinct ports below the ephemeral range that a server can listen on", async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    const servers: net.Server[] = [];
    try {
      for (const port of ports) {
        expect(port).toBeGreaterThanOrEqual(LOWEST_PORT);
        expect(port).toBeLessThan(ephemeralLow());
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
