// Versioned SQL migrations, applied at start. Each service owns its own folder of `NNN_name.sql` files and
// records what it applied in `schema_migrations`; an advisory lock keeps replicas from migrating at once.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type pg from "pg";
import { transaction } from "./db.js";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir: string): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .map((file) => {
      const match = /^(\d+)_([a-z0-9_]+)\.sql$/.exec(file);
      if (match === null) throw new Error(`migration file name must be NNN_name.sql: ${file}`);
      return { version: Number(match[1]), name: match[2] ?? "", sql: readFileSync(path.join(dir, file), "utf8") };
    })
    .sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migrations must be numbered 1..n without gaps; found ${m.version}`);
  });
  return migrations;
}

/** Applies the pending migrations of `service`; returns the versions applied now. */
export async function migrate(pool: pg.Pool, service: string, migrations: Migration[]): Promise<number[]> {
  return transaction(pool, async (client) => {
    // One lock for every service: CREATE TABLE IF NOT EXISTS is not safe when two processes run it at once
    // (services starting together on one database), and migrations are rare enough to take turns.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('schema_migrations'))");
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      service text NOT NULL, version integer NOT NULL, name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (service, version))`);
    const applied = await client.query<{ version: number }>(
      "SELECT version FROM schema_migrations WHERE service = $1",
      [service],
    );
    const done = new Set(applied.rows.map((r) => r.version));
    const now: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query("INSERT INTO schema_migrations (service, version, name) VALUES ($1, $2, $3)", [
        service,
        migration.version,
        migration.name,
      ]);
      now.push(migration.version);
    }
    return now;
  });
}
