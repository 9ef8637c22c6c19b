// `npm run bench:embedded`: the ceiling of the embedded default database (docs/embedded-database.md) beside a
// throwaway PostgreSQL on the same machine. The embedded database runs in a process of its own
// (scripts/embedded-database.ts, as `npm start`'s supervisor hosts it); this process drives it through `pg`
// with 1 and 16 connections in closed loops, for three statement shapes the services use: a parameterised
// read, a one-statement insert (autocommit), and a BEGIN / INSERT / COMMIT transaction. Prints a table and
// writes bench/embedded-results.json.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startEmbeddedDatabaseProcess } from "../test/harness/embedded.js";
import { startPostgres } from "../test/harness/postgres.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS_FILE = path.join(ROOT, "bench", "embedded-results.json");
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? "5000");
const CONNECTIONS = [1, 16];

type Shape = "read" | "insert" | "transaction";
const SHAPES: Shape[] = ["read", "insert", "transaction"];

interface Figure {
  database: string;
  shape: Shape;
  connections: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

async function startEmbedded(): Promise<{ url: string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "fts-bench-embedded-"));
  const served = await startEmbeddedDatabaseProcess(dataDir);
  return {
    url: served.url,
    async stop() {
      await served.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function once(client: pg.PoolClient, shape: Shape, n: number): Promise<void> {
  switch (shape) {
    case "read":
      await client.query("SELECT id, v FROM bench WHERE id = $1", [n % 1000]);
      return;
    case "insert":
      await client.query("INSERT INTO bench_log (n, at) VALUES ($1, now())", [n]);
      return;
    case "transaction":
      await client.query("BEGIN");
      await client.query("INSERT INTO bench_log (n, at) VALUES ($1, now())", [n]);
      await client.query("UPDATE bench SET v = v + 1 WHERE id = $1", [n % 1000]);
      await client.query("COMMIT");
  }
}

async function round(pool: pg.Pool, shape: Shape, connections: number): Promise<Omit<Figure, "database">> {
  const latencies: number[] = [];
  let n = 0;
  const end = performance.now() + ROUND_MS;
  const lane = async (): Promise<void> => {
    const client = await pool.connect();
    try {
      while (performance.now() < end) {
        const started = performance.now();
        await once(client, shape, n++);
        latencies.push(performance.now() - started);
      }
    } finally {
      client.release();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, lane));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    shape,
    connections,
    perSecond: Math.round(latencies.length / elapsed),
    p50Ms: Number(at(0.5).toFixed(2)),
    p99Ms: Number(at(0.99).toFixed(2)),
  };
}

async function measure(database: string, url: string): Promise<Figure[]> {
  const pool = new pg.Pool({ connectionString: url, max: Math.max(...CONNECTIONS) });
  try {
    await pool.query("CREATE TABLE bench (id int PRIMARY KEY, v bigint NOT NULL)");
    await pool.query("INSERT INTO bench SELECT g, 0 FROM generate_series(0, 999) g");
    await pool.query("CREATE TABLE bench_log (n bigint NOT NULL, at timestamptz NOT NULL)");
    const figures: Figure[] = [];
    for (const shape of SHAPES) {
      for (const connections of CONNECTIONS) {
        const figure = { database, ...(await round(pool, shape, connections)) };
        process.stdout.write(
          `${database.padEnd(10)} ${shape.padEnd(12)} ${String(connections).padStart(2)} conn  ` +
            `${String(figure.perSecond).padStart(7)}/s  p50 ${figure.p50Ms} ms  p99 ${figure.p99Ms} ms\n`,
        );
        figures.push(figure);
      }
    }
    return figures;
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  const figures: Figure[] = [];
  const embedded = await startEmbedded();
  try {
    figures.push(...(await measure("embedded", embedded.url)));
  } finally {
    await embedded.stop();
  }
  const postgres = await startPostgres();
  try {
    figures.push(...(await measure("postgres", postgres.url)));
  } finally {
    await postgres.stop();
  }
  writeFileSync(
    RESULTS_FILE,
    JSON.stringify({ at: new Date().toISOString(), roundMs: ROUND_MS, cpus: os.cpus().length, figures }, null, 2) +
      "\n",
  );
  process.stdout.write(`written to ${path.relative(ROOT, RESULTS_FILE)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:embedded failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
