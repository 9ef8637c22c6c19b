// `npm run bench:runtime`: the main thread's cost of talking to the shard threads (engine/shard/runtime.ts),
// without gRPC or HTTP in front. Two shards of the test ledger core on a throwaway PostgreSQL, metrics on (the
// engine's real observers), 256 accounts; 64 callers in a closed loop, each awaiting its reply before sending
// the next request, for reads (a query: no journal) and writes (a deposit: group commit), one warm-up second
// and then a timed window each. Prints requests/s and the main thread's own CPU time per request
// (/proc/thread-self, 10 ms ticks): the hand-over work the runtime does per request. A benchmark, not a test.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Registry } from "prom-client";
import { startPostgres } from "../test/harness/postgres.js";
import { engineMetrics } from "../engine/metrics.js";
import { openAll, startLedger } from "../engine/shard/runtime.testing.js";
import { freshDatabase } from "../engine/store/fresh-database.testing.js";

const CALLERS = 64;
const ACCOUNTS = 256;
const WARMUP_MS = 1_000;
const WINDOW_MS = 3_000;

function threadCpuSeconds(): number {
  const stat = readFileSync("/proc/thread-self/stat", "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const server = await startPostgres();
try {
  const url = await freshDatabase(server.url);
  const runtime = await startLedger(url, { metrics: engineMetrics(new Registry(), 2) });
  try {
    const ids = Array.from({ length: ACCOUNTS }, () => randomUUID());
    await openAll(runtime, ids);
    const phases = {
      query: (id: string) => runtime.query(id, { type: "state" }),
      deposit: (id: string) => runtime.command(id, { type: "deposit", amount: 1 }),
    };
    for (const [name, call] of Object.entries(phases)) {
      const loop = async (until: number, caller: number): Promise<number> => {
        let done = 0;
        for (let i = caller; performance.now() < until; i += CALLERS) {
          await call(ids[i % ACCOUNTS] ?? "");
          done++;
        }
        return done;
      };
      const warm = performance.now() + WARMUP_MS;
      await Promise.all(Array.from({ length: CALLERS }, (_, c) => loop(warm, c)));
      const cpu = threadCpuSeconds();
      const started = performance.now();
      const counts = await Promise.all(Array.from({ length: CALLERS }, (_, c) => loop(started + WINDOW_MS, c)));
      const seconds = (performance.now() - started) / 1000;
      const requests = counts.reduce((sum, n) => sum + n, 0);
      const usPerRequest = ((threadCpuSeconds() - cpu) * 1e6) / requests;
      console.log(
        `${name}: ${Math.round(requests / seconds).toLocaleString("en-US")} req/s, ` +
          `main thread ${usPerRequest.toFixed(1)} µs CPU per request (${CALLERS} callers, ${requests} requests)`,
      );
    }
  } finally {
    await runtime.stop();
  }
} finally {
  await server.stop();
}
