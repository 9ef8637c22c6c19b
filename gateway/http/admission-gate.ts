// The /v1 listener's front door (docs/overload.md): each request is put to the admission control
// (gateway/http/admission.ts) before the application sees it. A shed request is answered here, from the raw
// request, `503 overloaded` with Retry-After: no routing, no authentication, no body read, no rate-limit charge
// and no gRPC call, so shedding costs a small share of what serving costs.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { ERROR_CODES } from "../../kernel/errors.js";
import type { Admission, ShedReason } from "./admission.js";
import { requestIdFrom } from "./request.js";

/** What a shed request is told to wait before it tries again (Retry-After is this, rounded up to seconds). */
export const OVERLOADED_RETRY_AFTER_MS = 1_000;
/** Spread added to `retry_after_ms` so that shed clients do not all come back in the same instant. */
export const OVERLOADED_JITTER_MS = 2_000;

export interface GateOptions {
  /** A shed request: why, how long it waited (seconds) before it was answered, and its method. */
  onShed?: (reason: ShedReason, seconds: number, method: string) => void;
  /** Uniform in [0, 1): the jitter of `retry_after_ms`. */
  random?: () => number;
}

/** Requests that reduce an account's risk: cancels, cancel-all, flatten and closes go first (docs/overload.md). */
export function reducesRisk(method: string | undefined, url: string | undefined): boolean {
  if (url === undefined) return false;
  const path = url.split("?", 1)[0] ?? "";
  if (method === "DELETE") return path.startsWith("/v1/order/") || /^\/v1\/account\/[^/]+\/orders\/?$/.test(path);
  if (method === "POST") return path === "/v1/position/close" || /^\/v1\/account\/[^/]+\/flatten\/?$/.test(path);
  return false;
}

/** Whether the request is trading API work (health, readiness and metrics are never queued). */
function admitted(url: string | undefined): boolean {
  return url !== undefined && url.startsWith("/v1/");
}

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return typeof value === "string" ? value : "";
}

/** The client hung up (while its request waited for admission). */
const gone = (req: IncomingMessage, res: ServerResponse): boolean => res.destroyed || req.socket.destroyed;

function shed(req: IncomingMessage, res: ServerResponse, random: () => number): void {
  const retryAfterMs = OVERLOADED_RETRY_AFTER_MS + Math.floor(random() * OVERLOADED_JITTER_MS);
  const body = JSON.stringify({ error: ERROR_CODES.overloaded.wire, retry_after_ms: retryAfterMs });
  res.writeHead(503, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "Retry-After": String(Math.ceil(retryAfterMs / 1000)),
    "X-Request-Id": requestIdFrom(header(req, "x-request-id")),
  });
  res.end(body);
}

/** `app` behind the admission control: /v1 requests are admitted (or shed) first, the rest go straight in. */
export function admissionGate(admission: Admission, app: RequestListener, options: GateOptions = {}): RequestListener {
  const random = options.random ?? Math.random;
  return (req, res) => {
    if (!admitted(req.url)) {
      app(req, res);
      return;
    }
    const arrived = performance.now();
    admission.admit(header(req, "x-api-key"), reducesRisk(req.method, req.url), (permit) => {
      if (typeof permit === "string") {
        options.onShed?.(permit, (performance.now() - arrived) / 1000, req.method ?? "");
        // A client that hung up while it waited gets nothing; the socket is gone.
        if (!gone(req, res)) shed(req, res, random);
        return;
      }
      // Released once, when the answer is sent or the client hangs up; only an answer is a latency sample.
      res.once("finish", () => {
        permit.release(true);
      });
      res.once("close", () => {
        permit.release(false);
      });
      if (gone(req, res)) {
        permit.release(false);
        return;
      }
      app(req, res);
    });
  };
}
