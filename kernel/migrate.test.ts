import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { startPostgres, type PostgresServer } from "../test/harness/postgres.js";
import { migrate, type Migration } from "./migrate.js";

const table = (name: string): Migration[] => [
  { version: 1, name: "first", sql: `CREATE TABLE ${name}_a (id int)` },
  { version: 2, name: "second", sql: `CREATE TABLE ${name}_b (id int)` },
];

describe("migrate", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server.stop();
  });

  it("lets several services migrate one fresh database at the same moment", async () => {
    const pools = Array.from({ length: 6 }, () => new pg.Pool({ connectionString: server.url, max: 2 }));
    try {
      const applied = await Promise.all(pools.map((pool, i) => migrate(pool, `svc${i % 3}`, table(`svc${i % 3}`))));
      // Each service's migrations ran exactly once, whichever replica got there first.
      for (const service of [0, 1, 2]) {
        const ran = applied.filter((_, i) => i % 3 === service).map((versions) => versions.length);
        expect(ran.sort()).toEqual([0, 2]);
      }
      const rows = await pools[0]?.query<{ n: string }>("SELECT count(*) AS n FROM schema_migrations");
      expect(Number(rows?.rows[0]?.n)).toBe(6);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it("applies nothing the second time", async () => {
    const pool = new pg.Pool({ connectionString: server.url, max: 1 });
    try {
      expect(await migrate(pool, "again", table("again"))).toEqual([1, 2]);
      expect(await migrate(pool, "again", table("again"))).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});
