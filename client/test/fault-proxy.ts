// An HTTP proxy for the client's tests that sits between the client and a gateway and misbehaves on cue: it
// records every request it receives, and for the next requests it is told to, cuts the connection or never
// answers after the gateway answered (the request was handled, the answer lost), or answers 500/503/429 itself
// (before or after the gateway handled the request).
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type Fault =
  | "drop-after" // forward, then cut the connection without answering
  | "stall-after" // forward, then never answer (until the proxy closes)
  | "500-after" // forward, then answer 500 engine_error instead of the gateway's answer
  | "503-before" // answer 503 engine_unavailable without forwarding
  | "429-before"; // answer 429 rate_limited with Retry-After: 1 without forwarding

export interface Seen {
  method: string;
  path: string;
  body: string;
  /** The status the client got (0 when the connection was cut). */
  status: number;
}

export interface FaultProxy {
  url: string;
  seen: Seen[];
  /** Faults for the next requests whose path starts with `prefix`, in order. */
  inject(prefix: string, ...faults: Fault[]): void;
  close(): Promise<void>;
}

async function read(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const seen: Seen[] = [];
  const plans: { prefix: string; faults: Fault[] }[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await read(request);
      const path = request.url ?? "/";
      const entry: Seen = { method: request.method ?? "GET", path, body, status: 0 };
      seen.push(entry);
      const plan = plans.find((p) => path.startsWith(p.prefix) && p.faults.length > 0);
      const fault = plan?.faults.shift();
      const answer = (status: number, json: unknown, headers: Record<string, string> = {}): void => {
        entry.status = status;
        response.writeHead(status, { "content-type": "application/json", ...headers });
        response.end(JSON.stringify(json));
      };
      if (fault === "503-before") {
        answer(503, { error: "engine_unavailable" }, { "retry-after": "1" });
        return;
      }
      if (fault === "429-before") {
        answer(429, { error: "rate_limited", retry_after_ms: 1000 }, { "retry-after": "1" });
        return;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(name))
          headers[name] = value;
      }
      const init: RequestInit = { method: entry.method, headers };
      if (body !== "") init.body = body;
      const upstreamAnswer = await fetch(new URL(path, upstream), init);
      const text = await upstreamAnswer.text();
      if (fault === "stall-after") return;
      if (fault === "drop-after") {
        request.socket.destroy();
        return;
      }
      if (fault === "500-after") {
        answer(500, { error: "engine_error" });
        return;
      }
      entry.status = upstreamAnswer.status;
      const out: Record<string, string> = {};
      upstreamAnswer.headers.forEach((value, name) => {
        if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name))
          out[name] = value;
      });
      response.writeHead(upstreamAnswer.status, out);
      response.end(text);
    })().catch(() => {
      response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    inject(prefix, ...faults) {
      plans.push({ prefix, faults });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
