// The wire of the socket session (client/src/session.ts) on `GET /v1/stream` (docs/streaming.md): dialing a
// socket with the retry rules of client/src/transport.ts (an upgrade refused with 429 or 5xx, or failing without
// an answer, is tried again; any other answer is its `ApiError`), and reading an answer's status and body. The
// socket itself comes from a closure holding the credentials (TradingClient.connect).
import type WebSocket from "ws";
import { ApiError, ERROR_STATUS, NetworkError, RedirectError, isErrorCode } from "./errors.js";
import { parseBody, type Transport } from "./transport.js";

export type Message = Record<string, unknown>;

const STREAM = { method: "WS", path: "/v1/stream" };

export type Dialed =
  | { kind: "open"; ws: WebSocket }
  | { kind: "refused"; status: number; body: Record<string, unknown>; headers: Headers }
  | { kind: "failed"; error: Error };

/** Opens one socket and waits for its upgrade's outcome. */
function dial(open: () => WebSocket): Promise<Dialed> {
  return new Promise((resolve) => {
    let ws: WebSocket;
    try {
      ws = open();
    } catch (error) {
      resolve({ kind: "failed", error: error instanceof Error ? error : new Error(String(error)) });
      return;
    }
    // Stays for the socket's life until the session attaches its own: an `error` never goes unheard.
    const onError = (error: Error): void => {
      resolve({ kind: "failed", error });
    };
    ws.on("error", onError);
    ws.once("open", () => {
      ws.off("error", onError);
      resolve({ kind: "open", ws });
    });
    ws.once("unexpected-response", (_request, response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        const body = parseBody(Buffer.concat(chunks).toString("utf8"));
        resolve({ kind: "refused", status: response.statusCode ?? 0, body, headers });
        ws.terminate();
      });
    });
  });
}

/**
 * Dials until a socket opens, with the REST rules for an idempotent request: a network failure and a 429 or 5xx
 * upgrade answer are tried again, up to the transport's attempts; any other answer is final. `afterLoss`: the
 * socket before was lost, so the first dial is already a retry and waits its backoff. `ended` stops the dialing
 * with the error it gives.
 */
export async function connect(
  open: () => WebSocket,
  transport: Transport,
  afterLoss: boolean,
  ended: () => Error | undefined,
): Promise<WebSocket> {
  const retries = afterLoss ? 1 : 0;
  let delay = afterLoss ? { delayMs: transport.backoff(1), reason: "socket lost" } : undefined;
  for (let attempt = 1; ; attempt++) {
    if (delay !== undefined) await transport.wait(STREAM, attempt, delay.delayMs, delay.reason);
    const stop = ended();
    if (stop !== undefined) throw stop;
    const dialed = await dial(open);
    if (dialed.kind === "open") return dialed.ws;
    const last = attempt >= transport.maxAttempts;
    if (dialed.kind === "failed") {
      if (last) throw new NetworkError(dialed.error, attempt);
      delay = { delayMs: transport.backoff(attempt + retries), reason: "network" };
      continue;
    }
    if (dialed.status >= 300 && dialed.status < 400) {
      throw new RedirectError(dialed.status, dialed.headers.get("location"));
    }
    const error = new ApiError(dialed.status, dialed.body, dialed.headers.get("x-request-id"), attempt);
    delay = last ? undefined : transport.retryOf(dialed.status, dialed.body, dialed.headers, true, attempt);
    if (delay === undefined) throw error;
  }
}

/** The status and body of an answer: a trading operation's as sent, an ack as 200, an error by its code. */
export function answerOf(message: Message): { status: number; body: Message } {
  if (typeof message.status === "number") {
    const body = typeof message.body === "object" && message.body !== null ? (message.body as Message) : {};
    return { status: message.status, body };
  }
  if (message.op === "error") {
    const body = { ...message };
    delete body.op;
    delete body.id;
    return { status: isErrorCode(body.error) ? ERROR_STATUS[body.error] : 400, body };
  }
  return { status: 200, body: message };
}

/** A text frame's JSON object; undefined for anything else. */
export function parseMessage(text: string): Message | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Message) : undefined;
  } catch {
    return undefined;
  }
}
