// The client follows no redirect: a service (or anything in front of it) answering 3xx would otherwise have the
// key and secret, or the admin token, sent on to wherever it points. Two local servers: one redirects to the
// other, which records every request it gets.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeysClient, RedirectError, TradingClient } from "../src/index.js";

const SECRET = "svc_sk_redirect-test-secret";
const ADMIN = "admin-token-redirect-test";

let redirecting: Server;
let elsewhere: Server;
let redirectBase = "";
let elsewhereBase = "";
const arrived: IncomingHttpHeaders[] = [];
let status = 302;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  elsewhere = createServer((request, response) => {
    arrived.push(request.headers);
    response.writeHead(200, { "content-type": "application/json" });
    response.end('{"data":[]}');
  });
  elsewhereBase = await listen(elsewhere);
  redirecting = createServer((request, response) => {
    response.writeHead(status, { location: `${elsewhereBase}/captured${request.url ?? ""}` });
    response.end();
  });
  redirectBase = await listen(redirecting);
});
afterAll(() => {
  redirecting.close();
  elsewhere.close();
});

describe("a redirect", () => {
  it.each([301, 302, 303, 307, 308])(
    "answered %d is an error naming its location, and the key and secret never reach it",
    async (code) => {
      status = code;
      const client = new TradingClient({ baseUrl: redirectBase, apiKey: "svc_ak_redirect", apiSecret: SECRET });
      const error = await client.tickers().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedirectError);
      expect(error).toMatchObject({ status: code, location: `${elsewhereBase}/captured/v1/tickers` });
      expect((error as Error).message).toContain(`${elsewhereBase}/captured/v1/tickers`);
      expect((error as Error).message).not.toContain(SECRET);
      expect(arrived).toEqual([]);
    },
  );

  it("of a key-management call is refused too, and the admin token never reaches it", async () => {
    status = 307;
    const keys = new KeysClient({ baseUrl: redirectBase, userId: "u1", adminToken: ADMIN });
    const error = await keys.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({ status: 307, location: `${elsewhereBase}/captured/api/api-keys` });
    expect(arrived).toEqual([]);
  });

  it("of the stream's WebSocket upgrade is not followed either", async () => {
    status = 302;
    const client = new TradingClient({ baseUrl: redirectBase, apiKey: "svc_ak_redirect", apiSecret: SECRET });
    const socket = client.stream();
    const failure = await new Promise<Error>((resolve) => socket.once("error", resolve));
    expect(failure.message).toContain("302");
    expect(arrived).toEqual([]);
  });
});
