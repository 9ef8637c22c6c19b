import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Connection, Pool, parseResponse, requestText, type Answer } from "./http.js";

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

/** A server that answers every request with `body`, adding `Connection: close` to the first `closing` answers. */
async function countingServer(closing: number): Promise<{ port: number; sockets: net.Socket[] }> {
  const sockets: net.Socket[] = [];
  let answered = 0;
  const server = net.createServer((socket) => {
    sockets.push(socket);
    socket.on("data", () => {
      const close = answered++ < closing ? "Connection: close\r\n" : "";
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\n${close}\r\nok`);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as net.AddressInfo).port, sockets };
}

type Answered = { status: number; body: string | undefined; error: string | undefined };
const sent = (conn: Connection, wantBody?: boolean): Promise<Answered> =>
  new Promise((resolve) => {
    const answer: Answer = (status, body, error) => {
      resolve({ status, body: body?.toString(), error });
    };
    conn.send(requestText("GET", "/", "x", "", undefined), answer, wantBody);
  });

describe("Connection", () => {
  it("sends the request after an answer with Connection: close on a new socket", async () => {
    const { port, sockets } = await countingServer(1);
    const conn = new Connection("127.0.0.1", port);
    await conn.open();
    expect(await sent(conn)).toEqual({ status: 200, body: "ok", error: undefined });
    expect(conn.usable).toBe(false);
    expect(await sent(conn)).toEqual({ status: 200, body: "ok", error: undefined });
    expect(await sent(conn)).toEqual({ status: 200, body: "ok", error: undefined });
    conn.close();
    expect(sockets).toHaveLength(2);
  });

  it("reconnects for the next request when the server closed the idle socket, and tells its owner", async () => {
    const { port, sockets } = await countingServer(0);
    let closed = 0;
    let gone: () => void = () => undefined;
    const conn = new Connection("127.0.0.1", port, {
      closed: () => {
        closed++;
        gone();
      },
    });
    await conn.open();
    await new Promise<void>((resolve) => {
      gone = resolve;
      sockets[0]?.destroy();
    });
    expect(closed).toBe(1);
    expect(await sent(conn)).toEqual({ status: 200, body: "ok", error: undefined });
    conn.close();
    expect(sockets).toHaveLength(2);
  });

  it("answers without the body when the request does not want it", async () => {
    const { port } = await countingServer(0);
    const conn = new Connection("127.0.0.1", port);
    await conn.open();
    expect(await sent(conn, false)).toEqual({ status: 200, body: undefined, error: undefined });
    expect(await sent(conn)).toEqual({ status: 200, body: "ok", error: undefined });
    conn.close();
  });

  it("answers a request in flight with an error when the server closes the socket", async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => {
      sockets.push(socket);
      socket.on("data", () => socket.destroy());
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const conn = new Connection("127.0.0.1", (server.address() as net.AddressInfo).port);
    await conn.open();
    expect(await sent(conn)).toEqual({ status: 0, body: undefined, error: "connection closed" });
  });

  it("rejects open() and answers a request with connect failed when nothing listens", async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((r) => server.close(r));
    await expect(new Connection("127.0.0.1", port).open()).rejects.toThrow(/ECONNREFUSED/);
    const answer = await sent(new Connection("127.0.0.1", port));
    expect(answer.status).toBe(0);
    expect(answer.error).toMatch(/^connect failed: .*ECONNREFUSED/);
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
