// WatchAccount across a hand-over, on PostgreSQL (docs/streaming.md, docs/scale-out.md "Hand-over"): engine A
// commits an account's events and stops (it releases its leases); engine B, the next owner of the index, serves
// a WatchAccount from `after = N` with exactly the journal's events after N, those A committed included, then
// its own as they commit: no gap, no repeat.
import * as grpc from "@grpc/grpc-js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClients, type Clients } from "../gateway/clients.js";
import { untraced } from "../gateway/origin.js";
import { CHANNEL_OPTIONS, loadEngineProto, outgoingMetadata } from "../kernel/grpc.js";
import type { EngineClient } from "../proto/gen/engine/v1/Engine.js";
import type { WatchAccountReply__Output } from "../proto/gen/engine/v1/WatchAccountReply.js";
import { marketClient } from "../test/harness/market.js";
import { startPostgres, type PostgresServer } from "../test/harness/postgres.js";
import { TestEngine, restingBuy } from "./main.testing.js";
import { CATALOGUE } from "./market/catalogue.js";
import { freshDatabase } from "./store/fresh-database.testing.js";

const TOKEN = "engine-stream-handover-token";
const PLAN_ID = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const USER = "8f0c2b1e-7a52-4d8e-9a41-0d6d2c3f4b5a";

let server: PostgresServer;
let databaseUrl: string;

beforeAll(async () => {
  server = await startPostgres();
  databaseUrl = await freshDatabase(server.url);
});

afterAll(async () => {
  await server.stop();
});

/** An engine of index 0 of 1 on the shared database, priced, with clients for its calls. */
async function engineOn(name: string): Promise<{ engine: TestEngine; clients: Clients; stop: () => Promise<void> }> {
  const engine = new TestEngine(name, TOKEN, {
    DATABASE_URL: databaseUrl,
    PRICE_FEED: "push",
    WEBHOOKS_ENABLED: "false",
  });
  await engine.start();
  const market = marketClient(engine.address, TOKEN);
  await market.push({ "BTC-USD": Number(CATALOGUE.byKey("BTC-USD")?.reference_price) });
  market.close();
  const clients = createClients("127.0.0.1:9", [engine.address], TOKEN);
  return {
    engine,
    clients,
    stop: async () => {
      clients.close();
      await engine.stop();
    },
  };
}

/** The account's outbox as the journal holds it: (sequence, event id) in order. */
async function journal(accountId: string): Promise<{ sequence: number; id: string }[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const rows = await pool.query<{ sequence: string; event_id: string }>(
      "SELECT sequence, event_id FROM engine_outbox WHERE account_id = $1 ORDER BY sequence",
      [accountId],
    );
    return rows.rows.map((row) => ({ sequence: Number(row.sequence), id: row.event_id }));
  } finally {
    await pool.end();
  }
}

/** Opens WatchAccount on `address`; the replies so far, and a wait for a count of events. */
function watch(address: string, accountId: string, after: number) {
  const proto = loadEngineProto();
  const client: EngineClient = new proto.engine.v1.Engine(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  const replies: WatchAccountReply__Output[] = [];
  let wake = (): void => undefined;
  const call = client.WatchAccount({ user_id: USER, account_id: accountId, after }, outgoingMetadata(undefined, TOKEN));
  call.on("data", (reply: WatchAccountReply__Output) => {
    replies.push(reply);
    wake();
  });
  call.on("error", () => undefined);
  const events = (): { sequence: number; id: string }[] =>
    replies.flatMap((r) => (r.event === null ? [] : [{ sequence: r.event.sequence, id: r.event.id }]));
  return {
    replies,
    events,
    /** Resolves once `count` events came. */
    until: async (count: number): Promise<void> => {
      while (events().length < count) await new Promise<void>((resolve) => (wake = resolve));
    },
    close: () => {
      call.cancel();
      client.close();
    },
  };
}

describe("WatchAccount on the next owner of a partition", () => {
  it("replays from the journal exactly the events after `after`, the previous owner's included, then its own live", async () => {
    const a = await engineOn("stream-handover-a");
    const account = await a.clients.engine.createAccount({ user_id: USER, plan_id: PLAN_ID }, untraced("c"));
    for (let i = 0; i < 3; i++) await a.clients.engine.placeOrder(restingBuy(USER, account.account_id), untraced("p"));
    const before = await journal(account.account_id);
    expect(before.length).toBeGreaterThanOrEqual(3);
    await a.stop(); // the hand-over: drained, leases released

    const b = await engineOn("stream-handover-b");
    try {
      const after = 2;
      const watching = watch(b.engine.address, account.account_id, after);
      try {
        await watching.until(before.length - after);
        expect(watching.replies[0]).toMatchObject({ event: null, after });
        expect(watching.events()).toEqual(before.filter((e) => e.sequence > after));
        await b.clients.engine.placeOrder(restingBuy(USER, account.account_id), untraced("p"));
        const all = await journal(account.account_id);
        expect(all.length).toBeGreaterThan(before.length);
        await watching.until(all.length - after);
        expect(watching.events()).toEqual(all.filter((e) => e.sequence > after));
      } finally {
        watching.close();
      }
    } finally {
      await b.stop();
    }
  });
});
