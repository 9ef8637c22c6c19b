// The engine's tables: its migrations (engine/migrations) applied through the kernel's migrator.
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { migrate, readMigrations } from "../../kernel/migrate.js";

export const ENGINE_MIGRATIONS_DIR = fileURLToPath(new URL("../migrations/", import.meta.url));

/** Applies the engine's pending migrations (service "engine"); returns the versions applied now. */
export function migrateEngine(pool: pg.Pool): Promise<number[]> {
  return migrate(pool, "engine", readMigrations(ENGINE_MIGRATIONS_DIR));
}
