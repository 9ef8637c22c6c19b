// The overload benchmark's burst (docs/performance.md, "Overload"): three fresh keys each send 1,300
// concurrent `GET /v1/tickers` through one gateway at once, each request answered 503 sent again after its
// Retry-After, at most 3 times, as a client following the documented retry rule does. It reports the time from
// the first request to the last answer and what each key ended with; the target is every key ending with
// exactly its limit (1,200) of 200 and the rest (100) 429, within 15 s.
import type { LoadKey } from "./provision.js";

export const BURST = { keys: 3, perKey: 1_300, retries: 3, limit: 1_200, withinMs: 15_000 } as const;

export interface BurstResult {
  ms: number;
  /** Final statuses per key ("0": no answer, the request failed on its socket). */
  perKey: Record<string, number>[];
  /** Requests answered `503` at least once and sent again. */
  retried: number;
  met: boolean;
}

/** Whether every key ended with exactly `limit` × 200 and the rest × 429 within the time allowed. */
export function burstMet(perKey: readonly Record<string, number>[], ms: number): boolean {
  const exact = (counts: Record<string, number>): boolean =>
    Object.keys(counts).length === 2 && counts["200"] === BURST.limit && counts["429"] === BURST.perKey - BURST.limit;
  return perKey.length === BURST.keys && perKey.every(exact) && ms <= BURST.withinMs;
}

export function tally(statuses: readonly number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the burst against `v1` with `keys` (fresh: nothing counted against them yet). */
export async function runBurst(v1: string, keys: readonly LoadKey[]): Promise<BurstResult> {
  let retried = 0;
  const send = async (key: LoadKey): Promise<number> => {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(`${v1}/v1/tickers`, { headers: { "x-api-key": key.key, "x-api-secret": key.secret } });
        await response.arrayBuffer();
      } catch {
        return 0;
      }
      if (response.status !== 503 || attempt === BURST.retries) return response.status;
      if (attempt === 0) retried += 1;
      await sleep(Number(response.headers.get("retry-after") ?? "1") * 1000);
    }
  };
  const started = performance.now();
  const perKey = await Promise.all(
    keys.map(async (key) => tally(await Promise.all(Array.from({ length: BURST.perKey }, () => send(key))))),
  );
  const ms = Math.round(performance.now() - started);
  return { ms, perKey, retried, met: burstMet(perKey, ms) };
}
