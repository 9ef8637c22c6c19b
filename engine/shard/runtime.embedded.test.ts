// The same runtime on the embedded default: PGlite's one session lent to one connection at a time
// (docs/embedded-database.md; each shard has its own pool against it; a transaction never waits on a second
// connection).
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../kernel/db.js";
import { withPool } from "../store/fresh-database.testing.js";
import { accountsOnShard, openAll, startLedger } from "./runtime.testing.js";

let dir: string;
let embedded: EmbeddedPostgres;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "fts-engine-pglite-"));
  embedded = await startEmbeddedPostgres(dir);
});

afterAll(async () => {
  await embedded.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("on embedded PGlite", () => {
  it("group-commits, survives a failed commit without ghosts, and rebuilds the acknowledged state", async () => {
    const runtime = await startLedger(embedded.url);
    const ids = Array.from({ length: 20 }, () => randomUUID());
    try {
      await openAll(runtime, ids);
      const commands = 400;
      await Promise.all(
        Array.from({ length: commands }, (_, i) =>
          runtime.command(ids[i % ids.length] ?? "", { type: "deposit", amount: 1 }),
        ),
      );
      const transactions = await withPool(embedded.url, (pool) =>
        pool.query<{ n: string }>(
          "SELECT count(DISTINCT xmin::text) AS n FROM engine_events WHERE type = 'Deposited' AND account_id = ANY($1::uuid[])",
          [ids],
        ),
      );
      expect(Number(transactions.rows[0]?.n)).toBeLessThan(commands / 4);

      const [a, c] = accountsOnShard(0, 2, 2) as [string, string];
      await openAll(runtime, [a, c]);
      const spin = runtime.command(a, { type: "spin", ms: 300 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const failed = await Promise.allSettled([
        runtime.command(a, { type: "deposit", amount: 9 }),
        runtime.command(c, { type: "poison" }),
      ]);
      await spin;
      expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
      expect(await runtime.query(a, { type: "state" })).toMatchObject({ balance: 0 });
      expect(await runtime.command(a, { type: "deposit", amount: 4 })).toMatchObject({ ok: true, balance: 4 });
      await runtime.market({ tick: 11 });

      const all = [...ids, a, c];
      const before = await Promise.all(all.map((id) => runtime.query(id, { type: "state" })));
      const fresh = await startLedger(embedded.url);
      try {
        expect(await Promise.all(all.map((id) => fresh.query(id, { type: "state" })))).toEqual(before);
        expect(before[0]).toMatchObject({ balance: commands / ids.length, lastTick: 11 });
      } finally {
        await fresh.stop();
      }
    } finally {
      await runtime.stop();
    }
  });
});
