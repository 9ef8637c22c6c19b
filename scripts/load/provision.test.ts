import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { call } from "./provision.js";

let server: http.Server | undefined;

/** A server answering the statuses given, one per request, then 200. */
async function serve(statuses: number[]): Promise<{ url: string; requests: () => number }> {
  let count = 0;
  server = http.createServer((_req, res) => {
    const status = statuses[count++] ?? 200;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ status }));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, requests: () => count };
}

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe("provisioning calls", () => {
  it("try a 503 again until another answer comes", async () => {
    const { url, requests } = await serve([503, 503]);
    const answer = await call(url, {}, 5, 0);
    expect(answer).toEqual({ status: 200, body: { status: 200 } });
    expect(requests()).toBe(3);
  });

  it("give up with the 503 after the attempts, and never try another status again", async () => {
    const busy = await serve([503, 503, 503]);
    expect((await call(busy.url, {}, 2, 0)).status).toBe(503);
    expect(busy.requests()).toBe(2);
    await new Promise((resolve) => server?.close(resolve));
    const refused = await serve([422]);
    expect((await call(refused.url, {}, 5, 0)).status).toBe(422);
    expect(refused.requests()).toBe(1);
  });
});
