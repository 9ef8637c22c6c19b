// The HTTPS sender against a real TLS receiver on loopback: CA trust, the SSRF guard at connect time, no
// redirects, the deadline, the response cap, and Retry-After.
import https from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestCa, startReceiver, type Receiver, type TestCa } from "../../test/harness/receiver.js";
import { PUBLIC_ERRORS, httpsTransport, parseRetryAfter } from "./transport.js";

let ca: TestCa;
let receiver: Receiver;

beforeAll(async () => {
  ca = makeTestCa();
  receiver = await startReceiver(ca);
});

afterAll(async () => {
  await receiver.close();
  ca.remove();
});

const body = JSON.stringify({ hello: "world" });
const post = (options: { allowPrivate: boolean; ca?: string; timeoutMs?: number }, url: string) => {
  const transport = httpsTransport({ timeoutMs: 5_000, ...options });
  return transport.send({ url, headers: { "webhook-id": "msg_1" }, body }).finally(transport.close);
};

describe("https transport", () => {
  it("delivers to a receiver whose CA was added, with the headers and body given", async () => {
    const result = await post({ allowPrivate: true, ca: ca.caPem }, `${receiver.origin}/ok`);
    expect(result).toMatchObject({ ok: true, status: 200, retryAfterMs: null });
    const got = receiver.on("/ok")[0];
    expect(got?.body).toBe(body);
    expect(got?.headers["webhook-id"]).toBe("msg_1");
    expect(got?.headers["content-type"]).toBe("application/json");
  });

  it("always verifies TLS: a receiver signed by an unknown CA is an error", async () => {
    const result = await post({ allowPrivate: true }, `${receiver.origin}/untrusted`);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/certificate/i);
    expect(receiver.on("/untrusted")).toHaveLength(0);
  });

  it("refuses plain http", async () => {
    const result = await post({ allowPrivate: true, ca: ca.caPem }, `http://127.0.0.1:${receiver.port}/plain`);
    expect(result).toEqual({ ok: false, error: "webhook URL is not https", latencyMs: 0 });
  });

  it("refuses a loopback address literal and a host name resolving to loopback unless private targets are allowed", async () => {
    const literal = await post({ allowPrivate: false, ca: ca.caPem }, `${receiver.origin}/ssrf`);
    expect(literal.ok).toBe(false);
    expect(literal).toMatchObject({ error: "target refused: not a public address" });
    // "localhost" passes as a name; the check happens on the address it resolves to, when connecting.
    const named = await post({ allowPrivate: false, ca: ca.caPem }, `https://localhost:${receiver.port}/ssrf`);
    expect(named.ok).toBe(false);
    expect(named).toMatchObject({ error: PUBLIC_ERRORS.unresolved });
    expect(!named.ok && named.detail).toMatch(/^localhost resolves to non-public address (127\.0\.0\.1|::1)$/);
    expect(receiver.on("/ssrf")).toHaveLength(0);
  });

  it("tells the owner the same thing for a name that resolves to a private address and one that does not exist", async () => {
    const named = await post({ allowPrivate: false, ca: ca.caPem }, `https://localhost:${receiver.port}/oracle`);
    const missing = await post({ allowPrivate: false, ca: ca.caPem }, "https://no-such-host.invalid/oracle");
    for (const result of [named, missing]) {
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error).toBe(PUBLIC_ERRORS.unresolved);
      // No address and no resolver error in what the owner sees; the cause is kept for the operator's log.
      expect(result.error).not.toMatch(/\d+\.\d+\.\d+\.\d+|::1|ENOTFOUND|EAI_AGAIN|getaddrinfo|localhost|invalid/);
      expect(result.detail).toBeTruthy();
    }
    expect(!missing.ok && missing.detail).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it("says only 'could not connect' for a refused connection, keeping the address for the operator", async () => {
    const closed = https.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) =>
      closed.close(() => {
        resolve();
      }),
    );
    const result = await post({ allowPrivate: true, ca: ca.caPem }, `https://127.0.0.1:${port}/closed`);
    expect(result).toMatchObject({ ok: false, error: "could not connect" });
    expect(!result.ok && result.detail).toMatch(/ECONNREFUSED 127\.0\.0\.1/);
  });

  it("does not follow redirects: a 3xx is the answer", async () => {
    receiver.behave("/moved", { statuses: [302] });
    const result = await post({ allowPrivate: true, ca: ca.caPem }, `${receiver.origin}/moved`);
    expect(result).toMatchObject({ ok: true, status: 302 });
    expect(receiver.on("/moved")).toHaveLength(1);
  });

  it("gives up after the deadline", async () => {
    receiver.behave("/slow", { delayMs: 1_500 });
    const result = await post({ allowPrivate: true, ca: ca.caPem, timeoutMs: 200 }, `${receiver.origin}/slow`);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toBe("no answer within 200 ms");
  });

  it("reads Retry-After of a 503", async () => {
    receiver.behave("/busy", { statuses: [503], retryAfter: "7" });
    const result = await post({ allowPrivate: true, ca: ca.caPem }, `${receiver.origin}/busy`);
    expect(result).toMatchObject({ ok: true, status: 503, retryAfterMs: 7_000 });
  });

  it("reads at most 64 KiB of an answer and still reports its status (an endless body does not hold it)", async () => {
    const big = https.createServer({ key: ca.key, cert: ca.cert }, (_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 120);
      // A body that never ends: without the cap the attempt would run into its deadline.
      const write = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", write);
      };
      write();
    });
    await new Promise<void>((resolve) => big.listen(0, "127.0.0.1", resolve));
    try {
      const port = (big.address() as AddressInfo).port;
      const result = await post(
        { allowPrivate: true, ca: ca.caPem, timeoutMs: 5_000 },
        `https://127.0.0.1:${port}/big`,
      );
      expect(result).toMatchObject({ ok: true, status: 200 });
    } finally {
      big.closeAllConnections();
      big.close();
    }
  });
});

describe("https transport isolation", () => {
  /** A receiver host where /dead/* never answers and anything else answers 200; records each request's socket. */
  async function host() {
    const sockets: { path: string; port: number }[] = [];
    const server = https.createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
      req.resume();
      sockets.push({ path: req.url ?? "", port: req.socket.remotePort ?? 0 });
      if (req.url?.startsWith("/dead/") === true) return;
      res.writeHead(200).end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const origin = `https://localhost:${String((server.address() as AddressInfo).port)}`;
    const close = (): void => {
      server.closeAllConnections();
      server.close();
    };
    return { sockets, origin, close };
  }

  it("receivers that never answer do not hold up another key's attempt to the same host", async () => {
    const { origin, close } = await host();
    const transport = httpsTransport({ allowPrivate: true, ca: ca.caPem, timeoutMs: 1_500 });
    try {
      // Ten keys whose receivers (paths of one relay host) hang, then a healthy key on the same host.
      const dead = Array.from({ length: 10 }, (_, i) =>
        transport.send({ url: `${origin}/dead/${String(i)}`, headers: {}, body }),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      const healthy = await transport.send({ url: `${origin}/live`, headers: {}, body });
      expect(healthy).toMatchObject({ ok: true, status: 200 });
      expect(healthy.latencyMs).toBeLessThan(1_000);
      for (const result of await Promise.all(dead)) {
        expect(result).toMatchObject({ ok: false, error: "no answer within 1500 ms" });
      }
    } finally {
      transport.close();
      close();
    }
  });

  it("reuses the connection for consecutive deliveries to one receiver", async () => {
    const { sockets, origin, close } = await host();
    const transport = httpsTransport({ allowPrivate: true, ca: ca.caPem, timeoutMs: 2_000 });
    try {
      for (let i = 0; i < 3; i++) {
        expect(await transport.send({ url: `${origin}/live`, headers: {}, body })).toMatchObject({ status: 200 });
      }
      expect(sockets).toHaveLength(3);
      expect(new Set(sockets.map((s) => s.port)).size).toBe(1);
    } finally {
      transport.close();
      close();
    }
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-11-25T12:00:00Z");
  it.each([
    [undefined, null],
    ["120", 120_000],
    [" 5 ", 5_000],
    ["Wed, 25 Nov 2026 12:00:30 GMT", 30_000],
    ["Wed, 25 Nov 2026 11:00:00 GMT", 0],
    ["soon", null],
    ["-5", null],
  ])("%j → %j", (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
