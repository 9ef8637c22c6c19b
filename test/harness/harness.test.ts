import { describe, expect, it } from "vitest";
import pg from "pg";
import { Redis } from "ioredis";
import { startPostgres } from "./postgres.js";
import { startRedis } from "./redis.js";

describe("test harness", () => {
  it("starts a throwaway PostgreSQL that answers queries", async () => {
    const server = await startPostgres();
    try {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      const result = await client.query<{ v: string }>("select current_setting('server_version_num') as v");
      expect(Number(result.rows[0]?.v)).toBeGreaterThanOrEqual(150000);
      await client.end();
    } finally {
      await server.stop();
    }
  });

  it("starts a throwaway Redis that answers PING", async () => {
    const server = await startRedis();
    try {
      const redis = new Redis(server.url);
      expect(await redis.ping()).toBe("PONG");
      redis.disconnect();
    } finally {
      await server.stop();
    }
  });
});
