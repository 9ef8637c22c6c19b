// Test-only: a throwaway PostgreSQL per test file and a fresh, migrated engine database per test, through the
// vitest hooks of the file that calls it (at its top level).
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { startPostgres, type PostgresServer } from "../../test/harness/postgres.js";
import { freshDatabase } from "./fresh-database.testing.js";
import { migrateEngine } from "./schema.js";

export function migratedEngineDatabase(maxConnections = 4): { readonly pool: pg.Pool; readonly serverUrl: string } {
  let server: PostgresServer | undefined;
  let current: pg.Pool | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(async () => {
    if (server === undefined) throw new Error("PostgreSQL did not start");
    current = new pg.Pool({ connectionString: await freshDatabase(server.url), max: maxConnections });
    await migrateEngine(current);
  });
  afterEach(async () => {
    await current?.end();
    current = undefined;
  });
  return {
    get pool(): pg.Pool {
      if (current === undefined) throw new Error("no engine database outside a test");
      return current;
    },
    /** The server's own database, for a test that makes a database of its own (freshDatabase). */
    get serverUrl(): string {
      if (server === undefined) throw new Error("PostgreSQL did not start");
      return server.url;
    },
  };
}
