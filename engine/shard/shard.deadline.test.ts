// Deadlines in the mailbox (docs/engine.md, "Deadlines"), with the engine's own actor core on a `Shard` driven
// in this thread and an in-memory journal whose appends the test holds: a PlaceOrder queued behind a batch
// still committing is answered `expired` once its deadline passed, and nothing of it exists afterwards (no
// journal event, not among the working orders); a command whose deadline has not passed is decided as before.
// The clock is the test's: nothing here is timed.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createCore, type EngineTypes } from "../trading-core.js";
import type { Command } from "../core.js";
import type { EventRow, NewAccountRow, OutboxRow } from "../store/journal.js";
import type { ShardRequest, ShardResponse } from "./protocol.js";
import { MemoryJournal, startTestShard, type Unnumbered } from "./shard.testing.js";

const core = createCore();
const PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
/** A buy below the mark: it rests, so it is among the account's working orders once placed. */
const RESTING = { symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: "40000" };

/** A journal whose appends wait while `hold` is set, until `release` (the slow work a command queues behind). */
class HeldJournal extends MemoryJournal {
  private held: Promise<void> | undefined;
  private releaseHeld: (() => void) | undefined;

  hold(): void {
    this.held = new Promise((resolve) => {
      this.releaseHeld = resolve;
    });
  }

  release(): void {
    this.held = undefined;
    this.releaseHeld?.();
  }

  override async append(
    accounts: readonly NewAccountRow[],
    events: readonly EventRow[],
    outbox: readonly OutboxRow[],
  ): Promise<void> {
    const held = this.held;
    if (held !== undefined) await held;
    return super.append(accounts, events, outbox);
  }
}

async function setUp() {
  const journal = new HeldJournal();
  let now = NOW;
  const clock = { advance: (ms: number) => (now += ms) };
  const { send } = startTestShard(core, journal, () => now);
  const command = (accountId: string, cmd: Command, deadline?: number): Promise<ShardResponse<EngineTypes>> => {
    const request: Unnumbered<ShardRequest<EngineTypes>> = {
      kind: "command",
      to: { accountId },
      command: { userId: "u-1", command: cmd },
      ...(deadline === undefined ? {} : { deadline }),
    };
    return send(request);
  };
  const place = (accountId: string, clientId: string, deadline?: number) =>
    command(
      accountId,
      { type: "PlaceOrder", request: { account_id: accountId, client_id: clientId, ...RESTING } },
      deadline,
    );
  await send({ kind: "market", update: { prices: [{ symbol: "BTC-USD", mark: 500_000, index: 500_000, skew: 0 }] } });
  const account = randomUUID();
  const opened = await command(account, {
    type: "OpenAccount",
    request: { account_id: account, user_id: "u-1", plan_id: PLAN_ID },
  });
  expect(opened.kind).toBe("commandReply");
  const query = (deadline?: number): Promise<ShardResponse<EngineTypes>> =>
    send({
      kind: "query",
      to: { accountId: account },
      query: { userId: "u-1", query: { type: "orders" } },
      ...(deadline === undefined ? {} : { deadline }),
    });
  const workingClientIds = async (): Promise<string[]> => {
    const response = await query();
    if (response.kind !== "queryResult") throw new Error(JSON.stringify(response));
    const { data } = response.result as { data: { client_id?: string }[] };
    return data.map((order) => order.client_id ?? "");
  };
  /** The client ids of every order placement the journal holds. */
  const journaledClientIds = (): string[] =>
    journal.events.flatMap((row) => [...row.payload.matchAll(/"client_id":"([^"]+)"/g)].map((match) => match[1] ?? ""));
  return { journal, clock, place, query, workingClientIds, journaledClientIds, account };
}

describe("a command's deadline in the mailbox", () => {
  it("a PlaceOrder still queued when its deadline passes is answered expired and not placed", async () => {
    const { journal, clock, place, workingClientIds, journaledClientIds, account } = await setUp();
    journal.hold();
    // The slow work: a batch whose commit does not end until the test says so.
    const first = place(account, "first");
    await new Promise((resolve) => setImmediate(resolve));
    const late = place(account, "late", NOW + 1_000);
    const inTime = place(account, "in-time", NOW + 60_000);
    clock.advance(1_500);
    journal.release();
    expect((await first).kind).toBe("commandReply");
    expect(await late).toEqual({ kind: "expired", requestId: expect.any(Number) as number });
    expect((await inTime).kind).toBe("commandReply");
    expect(journaledClientIds()).not.toContain("late");
    expect(journaledClientIds()).toEqual(expect.arrayContaining(["first", "in-time"]));
    const working = await workingClientIds();
    expect(working).not.toContain("late");
    expect(working).toEqual(expect.arrayContaining(["first", "in-time"]));
  });

  it("a command whose deadline has not passed is decided as before", async () => {
    const { place, workingClientIds, account } = await setUp();
    expect((await place(account, "on-time", NOW + 1_000)).kind).toBe("commandReply");
    expect(await workingClientIds()).toContain("on-time");
  });

  it("a query still queued when its deadline passes is answered expired", async () => {
    const { journal, clock, place, account, query } = await setUp();
    journal.hold();
    const first = place(account, "first");
    await new Promise((resolve) => setImmediate(resolve));
    const late = query(NOW + 1_000);
    clock.advance(1_500);
    journal.release();
    expect((await first).kind).toBe("commandReply");
    expect((await late).kind).toBe("expired");
  });
});
