// The stream order-entry load generator: answers read by id and status (head or whole message), and the window
// of operations in flight per socket against a local WebSocket server that answers out of order.
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { answerOf, OrderSocket, pipelinedRun } from "./bench-stream-orders-load.js";

describe("answerOf", () => {
  it("reads id and status from the head of an answer", () => {
    const body = JSON.stringify({ order: { order_id: "o-1", status: "NEW", id: 99 } });
    expect(answerOf(Buffer.from(`{"op":"order.place","id":7,"status":201,"body":${body}}`))).toEqual({
      id: 7,
      status: 201,
    });
    expect(answerOf(Buffer.from(`{"op":"order.place","id":8,"status":200,"replayed":true,"body":{}}`))).toEqual({
      id: 8,
      status: 200,
    });
  });

  it("parses a message in another key order whole", () => {
    const message = `{"status":429,"op":"order.place","body":{"error":"rate_limited"},"id":12}`;
    expect(answerOf(Buffer.from(message))).toEqual({ id: 12, status: 429 });
  });

  it("has no id for an event, a string id or a message that is not JSON", () => {
    expect(answerOf(Buffer.from(`{"id":"evt-1","type":"order.ack","sequence":3}`))).toEqual({
      id: undefined,
      status: undefined,
    });
    expect(answerOf(Buffer.from(`{"op":"error","error":"invalid_payload"}`)).id).toBeUndefined();
    expect(answerOf(Buffer.from("not json"))).toEqual({ id: undefined, status: undefined });
  });
});

describe("pipelinedRun", () => {
  let server: WebSocketServer | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  /** Answers every operation 201, the operations that arrived in one turn in reverse order. */
  async function serve(): Promise<{ url: string; received: () => number }> {
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    server = wss;
    await new Promise((resolve) => wss.once("listening", resolve));
    let received = 0;
    wss.on("connection", (ws: WebSocket) => {
      let batch: number[] = [];
      ws.on("message", (data: Buffer) => {
        received++;
        batch.push((JSON.parse(data.toString("utf8")) as { id: number }).id);
        if (batch.length > 1) return;
        setImmediate(() => {
          for (const id of batch.reverse()) {
            ws.send(`{"op":"order.place","id":${id},"status":201,"body":{"order":{"status":"NEW"}}}`);
          }
          batch = [];
        });
      });
    });
    const { port } = wss.address() as AddressInfo;
    return { url: `ws://127.0.0.1:${port}/v1/stream`, received: () => received };
  }

  it("keeps the window full on every socket, matches answers by id and waits for the last ones", async () => {
    const { url, received } = await serve();
    const key = { key: "k", secret: "s" };
    const sockets = [0, 1, 2].map((i) => new OrderSocket(url, key, [{ accountId: `a-${i}`, index: i }]));
    for (const socket of sockets) await socket.connect();
    const mostInFlight = [0, 0, 0];
    const run = await pipelinedRun({
      name: "test",
      sockets,
      window: 4,
      ms: 100,
      operation: (socket, id) => {
        // The operation being sent is already pending: the socket's operations in flight with it.
        const i = sockets.indexOf(socket);
        mostInFlight[i] = Math.max(mostInFlight[i] ?? 0, socket.pending.size);
        return `{"op":"order.place","id":${id},"args":{}}`;
      },
      expectStatus: 201,
      checkEvery: 5,
      check: (message) => (message.includes('"NEW"') ? undefined : "not NEW"),
    });
    for (const socket of sockets) socket.close();
    expect(run.errors).toBe(0);
    expect(run.completed).toBe(received());
    expect(run.completed).toBeGreaterThan(12);
    expect(mostInFlight).toEqual([4, 4, 4]);
    expect(sockets.map((s) => s.pending.size)).toEqual([0, 0, 0]);
  });

  it("counts answers of another status as errors, by status", async () => {
    const { url } = await serve();
    const socket = new OrderSocket(url, { key: "k", secret: "s" }, [{ accountId: "a", index: 0 }]);
    await socket.connect();
    const run = await pipelinedRun({
      name: "test",
      sockets: [socket],
      window: 2,
      ms: 20,
      operation: (_socket, id) => `{"id":${id}}`,
      expectStatus: 200,
      checkEvery: 0,
      check: () => undefined,
    });
    socket.close();
    expect(run.completed).toBe(0);
    expect(run.errors).toBeGreaterThan(0);
    expect(Object.keys(run.statuses)).toEqual(["201"]);
    expect(run.firstError).toContain("status 201");
  });
});
