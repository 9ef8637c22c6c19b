import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Pool, parseResponse, requestText } from "./http.js";

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server that answers "/fast" at once and holds "/slow" until a "/fast" has been answered after it. */
async function holdingServer(): Promise<{ port: number; slowConnections: () => number }> {
  const held: net.Socket[] = [];
  let slow = 0;
  const reply = (socket: net.Socket, body: string): void => {
    socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`);
  };
  const server = net.createServer((socket) => {
    socket.on("data", (chunk: Buffer) => {
      const text = chunk.toString("latin1");
      if (text.startsWith("GET /slow")) {
        slow++;
        held.push(socket);
      } else {
        reply(socket, "fast");
        for (const h of held.splice(0)) reply(h, "slow");
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as net.AddressInfo).port, slowConnections: () => slow };
}

describe("Pool", () => {
  it("sends the next request while an earlier answer is still outstanding (open loop)", async () => {
    const { port } = await holdingServer();
    const pool = new Pool("127.0.0.1", port);
    await pool.warm(1);
    const order: string[] = [];
    const answered = (name: string) =>
      new Promise<void>((resolve) => {
        pool.request(requestText("GET", `/${name}`, "x", "", undefined), (status, body) => {
          order.push(`${name} ${status} ${body?.toString() ?? ""}`);
          resolve();
        });
      });
    // With one socket and no new one, /fast would wait behind /slow, which waits for /fast: a deadlock.
    await Promise.all([answered("slow"), answered("fast")]);
    pool.close();
    expect(order).toEqual(["fast 200 fast", "slow 200 slow"]);
    expect(pool.stats.opened).toBe(2);
    expect(pool.stats.queued).toBe(0);
  });

  it("reuses an idle socket (keep-alive)", async () => {
    const { port } = await holdingServer();
    const pool = new Pool("127.0.0.1", port);
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        pool.request(requestText("GET", "/fast", "x", "", undefined), () => {
          resolve();
        });
      });
    }
    pool.close();
    expect(pool.stats.opened).toBe(1);
  });

  it("reports a refused connection as an error, not an answer", async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((r) => server.close(r));
    const pool = new Pool("127.0.0.1", port);
    const result = await new Promise<{ status: number; error: string | undefined }>((resolve) => {
      pool.request(requestText("GET", "/", "x", "", undefined), (status, _body, error) => {
        resolve({ status, error });
      });
    });
    pool.close();
    expect(result.status).toBe(0);
    expect(result.error).toMatch(/connect|closed/);
  });
});

describe("parseResponse", () => {
  it("waits for the whole body, then finds where the answer ends", () => {
    const full = Buffer.from("HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1");
    expect(parseResponse(full.subarray(0, 45))).toBeUndefined();
    const parsed = parseResponse(full);
    expect(parsed?.status).toBe(201);
    expect(parsed?.body.toString()).toBe("hello");
    expect(parsed?.end).toBe(full.indexOf("hello") + 5);
    expect(parsed?.close).toBe(false);
  });

  it("decodes a chunked body and notes Connection: close", () => {
    const text =
      "HTTP/1.1 429 Too Many Requests\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
    const parsed = parseResponse(Buffer.from(text));
    expect(parsed).toMatchObject({ status: 429, close: true, end: text.length });
    expect(parsed?.body.toString()).toBe("abcde");
    expect(parseResponse(Buffer.from(text.slice(0, -2)))).toBeUndefined();
  });
});

describe("requestText", () => {
  it("adds the JSON headers and the byte length of a body", () => {
    expect(requestText("POST", "/v1/order", "h:1", "x-api-key: k\r\n", '{"a":"é"}')).toBe(
      'POST /v1/order HTTP/1.1\r\nHost: h:1\r\nx-api-key: k\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a":"é"}',
    );
  });
});
