// Test-only, outside any test runner (benchmarks use it too): an empty database per test on a PostgreSQL
// server, and a short-lived pool on one.
import { randomUUID } from "node:crypto";
import pg from "pg";

/** Creates an empty database on the server of `serverUrl` and returns its URL. */
export async function freshDatabase(serverUrl: string): Promise<string> {
  const name = `t_${randomUUID().replaceAll("-", "")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `fn` on a short-lived pool. */
export async function withPool<R>(url: string, fn: (pool: pg.Pool) => Promise<R>): Promise<R> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    return await fn(pool);
  } finally {
    await pool.end();
  }
}
