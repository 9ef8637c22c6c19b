// A load balancer in front of a stack's gateways for tests and benchmarks, doing what a Kubernetes Service and
// its ingress do: each gateway's /readyz is polled (every 100 ms by default) and each request goes to the next
// ready gateway in turn (round-robin). A request that could not connect at all (ECONNREFUSED: it never reached
// a gateway) is sent to another gateway; any other failure (a connection reset after the request was sent:
// it may have run) is the caller's. Connections are pooled per gateway by fetch (keep-alive), as a proxy does.
export interface Balancer {
  /** Sends `path` (e.g. "/v1/order") to a ready gateway; resolves with its answer and which gateway gave it. */
  fetch(path: string, init?: RequestInit): Promise<{ response: Response; gateway: number }>;
  /** Resolves once every gateway has been seen ready (or `which` alone). */
  ready(which?: number): Promise<void>;
  /** Whether gateway i was ready at its last poll. */
  isReady(i: number): boolean;
  /** Stops polling. */
  close(): void;
}

export interface BalancerOptions {
  /** Between two polls of a gateway's /readyz (default 100 ms). */
  pollMs?: number;
}

/** The error code fetch gives for a failed request: its cause's `code` (ECONNREFUSED, ECONNRESET, …). */
export function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === "string" ? cause.code : String(error);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A balancer over `bases`: each gateway's base URL (e.g. http://127.0.0.1:1234), polled at `bases[i]/readyz`. */
export function startBalancer(bases: readonly string[], options: BalancerOptions = {}): Balancer {
  const pollMs = options.pollMs ?? 100;
  const up = bases.map(() => false);
  let closed = false;
  let next = 0;

  const poll = async (i: number): Promise<void> => {
    while (!closed) {
      const started = Date.now();
      try {
        const answer = await fetch(`${bases[i] ?? ""}/readyz`, { signal: AbortSignal.timeout(2_000) });
        await answer.arrayBuffer();
        up[i] = answer.status === 200;
      } catch {
        up[i] = false;
      }
      await sleep(Math.max(0, pollMs - (Date.now() - started)));
    }
  };
  bases.forEach((_, i) => void poll(i));

  /** The next ready gateway in turn other than `not`; any other one when none is ready. */
  const pick = (not: ReadonlySet<number>): number | undefined => {
    for (const mustBeUp of [true, false]) {
      for (let n = 0; n < bases.length; n++) {
        const i = (next + n) % bases.length;
        if (not.has(i) || (mustBeUp && up[i] !== true)) continue;
        next = i + 1;
        return i;
      }
    }
    return undefined;
  };

  return {
    async fetch(path, init) {
      const tried = new Set<number>();
      for (;;) {
        const gateway = pick(tried);
        if (gateway === undefined) throw new Error(`no gateway accepted a connection for ${path}`);
        tried.add(gateway);
        try {
          return { response: await fetch(`${bases[gateway] ?? ""}${path}`, init), gateway };
        } catch (error) {
          if (errorCode(error) !== "ECONNREFUSED") throw error;
        }
      }
    },
    async ready(which) {
      while (which === undefined ? up.some((ok) => !ok) : up[which] !== true) await sleep(pollMs);
    },
    isReady(i) {
      return up[i] === true;
    },
    close() {
      closed = true;
    },
  };
}
