// Master-key rotation against a real PostgreSQL: secrets sealed under an old key are re-sealed under the
// new one, stay readable, and the old key can then be dropped.
import { randomBytes, randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, readMigrations } from "../../kernel/migrate.js";
import { startPostgres, type PostgresServer } from "../../test/harness/postgres.js";
import { resealWebhookSecrets } from "./reseal.js";
import { Sealer, masterKeyFromBase64, sealerFromSettings, type MasterKey } from "./sealed.js";

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "migrations");
const newMasterKey = (): MasterKey => masterKeyFromBase64(randomBytes(32).toString("base64"));

let server: PostgresServer;
let pool: pg.Pool;

beforeAll(async () => {
  server = await startPostgres();
  pool = new pg.Pool({ connectionString: server.url, max: 2 });
  await migrate(pool, "wallet", readMigrations(MIGRATIONS));
  await pool.query("INSERT INTO api_key_owners (user_id) VALUES ('u1')");
});

afterAll(async () => {
  await pool.end();
  await server.stop();
});

async function insertKey(sealed: string | null): Promise<string> {
  const id = randomUUID();
  await pool.query(
    `INSERT INTO api_keys (id, user_id, key_hash, key_prefix, secret_hash, label, permissions, webhook_secret_enc, created_at)
     VALUES ($1, 'u1', $2, 'svc_ak_x', $3, 'bot', '{READ_ONLY}', $4, now())`,
    [id, randomBytes(32), randomBytes(32), sealed],
  );
  return id;
}

async function sealedOf(id: string): Promise<string> {
  const result = await pool.query<{ s: string }>("SELECT webhook_secret_enc AS s FROM api_keys WHERE id = $1", [id]);
  return result.rows[0]?.s ?? "";
}

describe("resealWebhookSecrets", () => {
  it("re-seals every secret under the current key; afterwards the old key is not needed to open them", async () => {
    const oldKey = newMasterKey();
    const newKey = newMasterKey();
    const before = new Sealer(oldKey);
    const secrets = Array.from({ length: 7 }, () => `whsec_${randomBytes(24).toString("base64")}`);
    const ids = await Promise.all(secrets.map((secret) => insertKey(before.seal(secret))));
    const none = await insertKey(null);

    const rotating = new Sealer(newKey, [oldKey]);
    const already = await insertKey(rotating.seal("whsec_new"));
    const result = await resealWebhookSecrets(pool, rotating, 3);
    expect(result).toMatchObject({ resealed: 7, unreadable: 0, raced: 0 });
    expect(result.current).toBeGreaterThanOrEqual(1);

    const after = new Sealer(newKey);
    for (const [index, id] of ids.entries()) {
      const sealed = await sealedOf(id);
      expect(sealed.startsWith(`v1.${newKey.id}.`)).toBe(true);
      expect(after.open(sealed)).toBe(secrets[index]);
    }
    expect(after.open(await sealedOf(already))).toBe("whsec_new");
    expect(await sealedOf(none)).toBe("");

    // Run again: nothing left to do.
    expect(await resealWebhookSecrets(pool, rotating)).toMatchObject({ resealed: 0, unreadable: 0 });
  });

  it("counts secrets under a key it does not know instead of failing the rotation midway", async () => {
    const lost = new Sealer(newMasterKey()).seal("whsec_lost");
    const id = await insertKey(lost);
    const result = await resealWebhookSecrets(pool, new Sealer(newMasterKey()));
    expect(result.unreadable).toBeGreaterThanOrEqual(1);
    expect(await sealedOf(id)).toBe(lost);
  });
});

describe("sealerFromSettings", () => {
  it("seals with WEBHOOK_MASTER_KEY and opens with it and every previous key", () => {
    const [a, b, c] = [randomBytes(32), randomBytes(32), randomBytes(32)].map((bytes) => bytes.toString("base64"));
    const old = sealerFromSettings({ DATA_DIR: "/nonexistent", WEBHOOK_MASTER_KEY: b });
    const sealer = sealerFromSettings({
      DATA_DIR: "/nonexistent",
      WEBHOOK_MASTER_KEY: a,
      WEBHOOK_MASTER_KEY_PREVIOUS: ` ${b} ,${c}`,
    });
    expect(sealer.open(old.seal("s"))).toBe("s");
    expect(sealer.isCurrent(sealer.seal("t"))).toBe(true);
    expect(sealer.isCurrent(old.seal("t"))).toBe(false);
    expect(sealer.currentKeyId).toBe(masterKeyFromBase64(a ?? "").id);
  });
});
