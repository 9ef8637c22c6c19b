// One HTTPS POST to a webhook receiver (docs/webhooks.md, "Security"): https only, TLS always verified (the
// system CAs plus WEBHOOK_CA_FILE), every resolved address checked at connect time (no loopback, private,
// link-local or multicast target unless allowed), no redirect followed, a total deadline, and at most
// RESPONSE_CAP bytes of the answer read. A failure has two texts: `error`, what the key's owner sees in the
// delivery log (generic: no address, no resolver error, so the log cannot map internal names), and `detail`,
// the cause for the operator's log.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { rootCertificates } from "node:tls";
import { isNonPublicAddress } from "../../kernel/ssrf.js";

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type SendResult =
  | { ok: true; status: number; retryAfterMs: number | null; latencyMs: number }
  | { ok: false; error: string; detail?: string; latencyMs: number };

export type Send = (request: WebhookRequest) => Promise<SendResult>;

export interface TransportOptions {
  /** Extra trusted CA certificates (PEM), added to the system's. */
  ca?: string | undefined;
  allowPrivate: boolean;
  timeoutMs: number;
  /** Monotonic ms. */
  now?: () => number;
}

/** Bytes of a response body read at most (the rest is dropped with the connection). */
export const RESPONSE_CAP = 64 * 1024;

export class RefusedTarget extends Error {}

/** The attempt's deadline passed. */
class NoAnswer extends Error {}

/** What the key's owner sees for each kind of failure (the delivery log, docs/webhooks.md). */
export const PUBLIC_ERRORS = {
  /** The name did not resolve, or resolved to a non-public address: one text, so neither can be told apart. */
  unresolved: "could not connect: the host has no public address",
  /** An IP literal in the URL that is not public. */
  literal: "target refused: not a public address",
  tls: "TLS failed: the receiver's certificate is not trusted",
  connect: "could not connect",
} as const;

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** The owner's text for a request error (the raw error goes to the operator's log only). */
export function publicError(error: Error): string {
  if (error instanceof RefusedTarget) return PUBLIC_ERRORS.unresolved;
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (syscall === "getaddrinfo" || syscall === "queryA" || syscall === "queryAaaa") return PUBLIC_ERRORS.unresolved;
  if (code !== undefined && TLS_CODES.test(code)) return PUBLIC_ERRORS.tls;
  return PUBLIC_ERRORS.connect;
}

/** `Retry-After` as milliseconds from now: delta seconds or an HTTP date; null when absent or unusable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date ("Wed, 25 Nov 2026 12:00:30 GMT"); Date.parse alone would read "-5" as a year.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

/** A `lookup` for net.connect that refuses non-public addresses (the check happens on what is connected to). */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error !== null) {
        callback(error, "", 4);
        return;
      }
      const refused = allowPrivate ? undefined : addresses.find((a) => isNonPublicAddress(a.address));
      if (refused !== undefined) {
        callback(new RefusedTarget(`${hostname} resolves to non-public address ${refused.address}`), "", 4);
        return;
      }
      const first = addresses[0];
      if (first === undefined) {
        callback(new RefusedTarget(`${hostname} has no address`), "", 4);
        return;
      }
      if (options.all === true) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

/** The sender the dispatcher uses in production. */
export function httpsTransport(options: TransportOptions): { send: Send; close: () => void } {
  const now = options.now ?? (() => performance.now());
  // Keep-alive: a receiver's consecutive deliveries reuse its connection. No per-host socket cap: each key's
  // lane has at most one attempt on the wire (and the dispatcher runs at most maxLanes lanes), and a cap shared
  // by every key on a host would queue a healthy key's attempt behind dead receivers of that host, its deadline
  // running while it waits.
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: Infinity,
    ca: options.ca === undefined ? undefined : [...rootCertificates, options.ca],
    rejectUnauthorized: true,
  });
  const lookup = guardedLookup(options.allowPrivate);

  const send: Send = (request) => {
    const started = now();
    const target = targetOf(request.url, options.allowPrivate);
    if (!(target instanceof URL)) return Promise.resolve(target);
    return post(target, request, { agent, lookup, timeoutMs: options.timeoutMs }, () => Math.round(now() - started));
  };
  return {
    send,
    close: () => {
      agent.destroy();
    },
  };
}

/** The URL to post to, or why no attempt is made (not https, or an IP literal that is not public). */
function targetOf(text: string, allowPrivate: boolean): URL | SendResult {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, error: "invalid webhook URL", latencyMs: 0 };
  }
  if (url.protocol !== "https:") return { ok: false, error: "webhook URL is not https", latencyMs: 0 };
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  // An IP literal is connected to without a lookup: check it here.
  if (isIP(host) !== 0 && !allowPrivate && isNonPublicAddress(host)) {
    return { ok: false, error: PUBLIC_ERRORS.literal, detail: `${host} is not a public address`, latencyMs: 0 };
  }
  return url;
}

/** One POST within the deadline: the answer's status (at most RESPONSE_CAP bytes read), or why there is none. */
function post(
  url: URL,
  request: WebhookRequest,
  via: { agent: https.Agent; lookup: LookupFunction; timeoutMs: number },
  elapsed: () => number,
): Promise<SendResult> {
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: SendResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = https.request(
      url,
      {
        method: "POST",
        agent: via.agent,
        lookup: via.lookup,
        headers: {
          ...request.headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(request.body).toString(),
          "user-agent": "funded-trading-webhooks/1",
        },
      },
      (res) => {
        let read = 0;
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > RESPONSE_CAP) res.destroy();
        });
        const done = (): void => {
          const status = res.statusCode ?? 0;
          const retryAfter = res.headers["retry-after"];
          finish({ ok: true, status, retryAfterMs: parseRetryAfter(retryAfter, Date.now()), latencyMs: elapsed() });
        };
        res.on("end", done);
        res.on("close", done);
        res.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new NoAnswer(`no answer within ${via.timeoutMs} ms`));
    }, via.timeoutMs);
    req.on("error", (error: Error) => {
      if (error instanceof NoAnswer) {
        finish({ ok: false, error: error.message, latencyMs: elapsed() });
        return;
      }
      finish({ ok: false, error: publicError(error), detail: error.message, latencyMs: elapsed() });
    });
    req.end(request.body);
  });
}
