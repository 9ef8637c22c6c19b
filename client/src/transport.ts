// One HTTP exchange with the service, retried the way docs/openapi.yaml asks: a network failure, a timeout,
// 500 and 503 are sent again with the very same body (so an order keeps its `client_id`); 429 waits for
// `Retry-After` (or the `RateLimit` reset, else the body's `retry_after_ms`); every other status is final and
// never repeated. Waits are jittered exponential backoff from 1 s doubling to 30 s. A request that is not safe to
// repeat once the server may have handled it (opening an account, creating a key) is retried only on what the
// gateway refuses before handling anything: 429, 503 rate_limiter_unavailable and 503 overloaded. A
// `503 overloaded` waits the server's `retry_after_ms` (else `Retry-After`) stretched by up to half again at
// random. Every attempt first asks the client's adaptive throttle (client/src/throttle.ts); an attempt it refuses
// is not sent and is waited out like a shed answer, and a request whose last attempt it refuses is a
// ThrottledError. A redirect is never followed (the credentials would go with it): it is a RedirectError naming
// where it pointed. `retryOf` is the one judgement of an answer, also used by the socket session.
import { ApiError, NetworkError, RedirectError, ThrottledError } from "./errors.js";
import type { Pacer } from "./pacer.js";
import { parseRateLimit } from "./pacer.js";
import { AdaptiveThrottle } from "./throttle.js";

export interface RetryOptions {
  /** Attempts in all, the first included (default 6). */
  maxAttempts?: number;
  /** First backoff (default 1,000 ms); it doubles up to `maxDelayMs`. */
  initialDelayMs?: number;
  /** Longest backoff (default 30,000 ms). */
  maxDelayMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  /** Headers sent with every request (credentials). */
  headers?: () => Record<string, string>;
  retry?: RetryOptions;
  /** Abort an attempt that has no answer after this long (default 10,000 ms); it counts as a network failure. */
  timeoutMs?: number;
  /** Space requests by the `RateLimit` headers (default on for /v1, where the gateway sends them). */
  pacer?: Pacer | false;
  /**
   * Client-side adaptive throttling on `503 overloaded` (default: one throttle per transport, so per client
   * instance; pass one instance to several clients to share it). `false` turns it off.
   */
  throttle?: AdaptiveThrottle | false;
  fetch?: typeof fetch;
  /** How waits are made; tests record them instead of sleeping. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Called before each retry with what is retried and how long it waits. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  method: string;
  path: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface RequestSpec {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | boolean | null | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Safe to send again after the server may have handled it (reads, idempotent writes). */
  idempotent: boolean;
  /** What the gateway counts the request as against the key's budget (a batch: one per order); default 1. */
  units?: number;
}

export interface Answer<T> {
  status: number;
  body: T;
  /** The body as it came (for answers that are not JSON). */
  text: string;
  headers: Headers;
  attempts: number;
}

const RETRY_STATUSES = new Set([500, 502, 503, 504]);

export class Transport {
  private readonly options: TransportOptions;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  readonly pacer: Pacer | undefined;
  readonly throttle: AdaptiveThrottle | undefined;

  constructor(options: TransportOptions) {
    this.options = options;
    this.fetchImpl = options.fetch ?? fetch;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.pacer = options.pacer === false ? undefined : (options.pacer ?? undefined);
    this.throttle =
      options.throttle === false ? undefined : (options.throttle ?? new AdaptiveThrottle({ random: this.random }));
  }

  /** The backoff before retry number `retry` (1-based): 1 s, 2 s, 4 s … up to 30 s, jittered to 50–100 %. */
  backoff(retry: number): number {
    const initial = this.options.retry?.initialDelayMs ?? 1_000;
    const max = this.options.retry?.maxDelayMs ?? 30_000;
    const ceiling = Math.min(max, initial * 2 ** (retry - 1));
    return Math.round(ceiling * (0.5 + this.random() / 2));
  }

  async request<T>(spec: RequestSpec): Promise<Answer<T>> {
    const maxAttempts = this.maxAttempts;
    const url = new URL(spec.path, this.options.baseUrl);
    for (const [name, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    // Serialised once: every attempt sends the same bytes.
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers: Record<string, string> = { ...this.options.headers?.(), ...spec.headers };
    if (body !== undefined) headers["content-type"] = "application/json";

    let lastAnswer: ApiError | undefined;
    for (let attempt = 1; ; attempt++) {
      if (this.throttle !== undefined && !this.throttle.admit()) {
        if (attempt >= maxAttempts) throw new ThrottledError(attempt, lastAnswer);
        await this.wait(spec, attempt, this.backoff(attempt), "throttled");
        continue;
      }
      let response: Response;
      let text: string;
      await this.pacer?.acquire(spec.units);
      try {
        response = await this.fetchImpl(url, {
          method: spec.method,
          headers,
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        text = await response.text();
      } catch (error) {
        this.pacer?.release(undefined, spec.units);
        if (!spec.idempotent || attempt >= maxAttempts) throw new NetworkError(error, attempt);
        await this.wait(spec, attempt, this.backoff(attempt), "network");
        continue;
      }
      this.pacer?.release(response.headers, spec.units);
      const parsed = parseBody(text);
      const overloaded = response.status === 503 && parsed.error === "overloaded";
      this.throttle?.record(!overloaded);
      if (response.status >= 300 && response.status < 400) {
        throw new RedirectError(response.status, locationOf(response, url));
      }
      if (response.ok) {
        return { status: response.status, body: parsed as T, text, headers: response.headers, attempts: attempt };
      }

      lastAnswer = new ApiError(response.status, parsed, response.headers.get("x-request-id"), attempt);
      const retry =
        attempt < maxAttempts
          ? this.retryOf(response.status, parsed, response.headers, spec.idempotent, attempt)
          : undefined;
      if (retry === undefined) throw lastAnswer;
      await this.wait(spec, attempt, retry.delayMs, retry.reason);
    }
  }

  /** Attempts in all for one request, the first included (`retry.maxAttempts`, default 6). */
  get maxAttempts(): number {
    return this.options.retry?.maxAttempts ?? 6;
  }

  /** How long an attempt may wait for its answer before it counts as a network failure (default 10,000 ms). */
  get timeoutMs(): number {
    return this.options.timeoutMs ?? 10_000;
  }

  /**
   * Whether a non-success answer is sent again and after how long (the wait before retry number `attempt`), or
   * undefined when it is final. 429, 503 rate_limiter_unavailable and 503 overloaded are answered before the
   * request is handled: retried for any request. 500, 502, 503 and 504 are retried for idempotent ones only.
   * The socket session (client/src/session.ts) asks the same of its answers, whose headers are empty.
   */
  retryOf(
    status: number,
    body: Record<string, unknown>,
    headers: Headers,
    idempotent: boolean,
    attempt: number,
  ): { delayMs: number; reason: string } | undefined {
    const overloaded = status === 503 && body.error === "overloaded";
    const refused = overloaded || status === 429 || (status === 503 && body.error === "rate_limiter_unavailable");
    if (!refused && !(idempotent && RETRY_STATUSES.has(status))) return undefined;
    if (overloaded) return { delayMs: this.overloadDelay(headers, body, attempt), reason: "503 overloaded" };
    return { delayMs: Math.max(this.backoff(attempt), serverDelay(headers, body)), reason: String(status) };
  }

  /**
   * The wait after `503 overloaded`: the body's `retry_after_ms` (else `Retry-After` seconds, else the backoff),
   * stretched to between 1 and 1.5 times, so the requests one overload shed do not all come back at once.
   */
  overloadDelay(headers: Headers, body: Record<string, unknown>, attempt: number): number {
    const exact = body.retry_after_ms;
    const retryAfter = headers.get("retry-after")?.trim() ?? "";
    let asked: number;
    if (typeof exact === "number" && Number.isFinite(exact) && exact >= 0) asked = exact;
    else if (/^\d+$/.test(retryAfter)) asked = Number(retryAfter) * 1000;
    else return this.backoff(attempt);
    return Math.round(asked * (1 + this.random() / 2));
  }

  /** Tells `onRetry` what is retried, then waits `delayMs` (with the transport's `sleep`). */
  async wait(
    spec: Pick<RetryEvent, "method" | "path">,
    attempt: number,
    delayMs: number,
    reason: string,
  ): Promise<void> {
    this.options.onRetry?.({ method: spec.method, path: spec.path, attempt, delayMs, reason });
    await this.sleep(delayMs);
  }
}

/**
 * The wait the server asked for: `Retry-After` seconds (the body's `retry_after_ms` when larger), else the
 * `RateLimit` reset when nothing remains, else the body's `retry_after_ms` (all a socket answer carries).
 */
function serverDelay(headers: Headers, body: Record<string, unknown>): number {
  const exact =
    typeof body.retry_after_ms === "number" && Number.isFinite(body.retry_after_ms) ? body.retry_after_ms : 0;
  const retryAfter = headers.get("retry-after");
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) return Math.max(Number(retryAfter) * 1000, exact);
  const state = parseRateLimit(headers.get("ratelimit"));
  if (state !== undefined && state.remaining === 0) return state.resetMs;
  return exact;
}

/** A redirect's `Location`, resolved against the URL asked for; as sent when it does not resolve. */
function locationOf(response: Response, url: URL): string | null {
  const location = response.headers.get("location");
  if (location === null) return null;
  try {
    return new URL(location, url).href;
  } catch {
    return location;
  }
}

export function parseBody(text: string): Record<string, unknown> {
  if (text === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : { value };
  } catch {
    return { text };
  }
}
