// The key store on the embedded database: a create still undecided at its decide-by time rolls back, so a
// caller answered "unavailable" finds no key whose secret it never saw (docs/decisions.md, "Key creation
// under load").
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../kernel/embedded-postgres.js";
import { DeadlineExceeded } from "../kernel/errors.js";
import { migrate, readMigrations } from "../kernel/migrate.js";
import { KeyStore, type NewKey } from "./store.js";

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
const NOW = new Date("2026-12-02T12:00:00.000Z");

function newKey(userId: string, n: number): NewKey {
  return {
    userId,
    keyHash: Buffer.from(`hash-${userId}-${n}`),
    keyPrefix: `pk_${n}`,
    secretHash: Buffer.from(`secret-${userId}-${n}`),
    label: `key ${n}`,
    permissions: ["READ_ONLY"],
    ipWhitelist: [],
    webhookUrl: null,
    webhookSecretSealed: null,
    expiresAt: null,
    createdAt: NOW,
  };
}

describe("KeyStore.createWithinLimit", () => {
  let dir: string;
  let embedded: EmbeddedPostgres;
  let pool: pg.Pool;
  let store: KeyStore;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "wallet-store-"));
    embedded = await startEmbeddedPostgres(dir);
    pool = new pg.Pool({ connectionString: embedded.url, max: 2 });
    await migrate(pool, "wallet", readMigrations(MIGRATIONS));
    store = new KeyStore(pool);
  });
  afterAll(async () => {
    await pool.end();
    await embedded.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("rolls a create back when its decide-by time has passed, and commits one decided in time", async () => {
    await expect(store.createWithinLimit(newKey("late", 1), 10, NOW, Date.now() - 1)).rejects.toBeInstanceOf(
      DeadlineExceeded,
    );
    expect(await store.listActive("late", NOW)).toEqual([]);

    const row = await store.createWithinLimit(newKey("late", 2), 10, NOW, Date.now() + 60_000);
    expect(row).toMatchObject({ userId: "late", label: "key 2" });
    expect((await store.listActive("late", NOW)).map((r) => r.label)).toEqual(["key 2"]);
  });

  it("answers the limit without a decide-by time, and a rolled-back create takes no place under it", async () => {
    for (let n = 0; n < 9; n++) expect(await store.createWithinLimit(newKey("full", n), 10, NOW)).not.toBe("limit");
    await expect(store.createWithinLimit(newKey("full", 9), 10, NOW, Date.now() - 1)).rejects.toThrow(
      "deadline passed",
    );
    expect(await store.createWithinLimit(newKey("full", 10), 10, NOW)).not.toBe("limit");
    expect(await store.createWithinLimit(newKey("full", 11), 10, NOW)).toBe("limit");
    expect(await store.listActive("full", NOW)).toHaveLength(10);
  });
});
