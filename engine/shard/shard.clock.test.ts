// The shard's clock (clock.ts): an account whose wake time (`core.wakeAt`) comes is decided by
// `core.onClock` with no message for it, through the batch, journal and outbox like a price update. Driven on
// a `Shard` directly, in this thread, with an alarm core and an in-memory journal.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ActorCore, CoreTypes } from "./core-contract.js";
import { Shard } from "./shard.js";
import type { ShardRequest } from "./protocol.js";
import { MemoryJournal, startTestShard, type Unnumbered } from "./shard.testing.js";

interface AlarmState {
  userId: string;
  /** Alarm times (epoch ms) not rung yet. */
  alarms: number[];
  /** [alarm time, the decision's now] of every alarm rung. */
  rang: [number, number][];
}

type AlarmEvent =
  { type: "Opened"; userId: string } | { type: "AlarmSet"; at: number } | { type: "Rang"; at: number; now: number };

interface AlarmTypes extends CoreTypes {
  state: AlarmState;
  command: { type: "open" } | { type: "set"; at: number };
  event: AlarmEvent;
  reply: { ok: boolean };
  query: { type: "state" };
  queryResult: AlarmState | null;
  update: { tick: number };
  market: { tick: number };
}

interface Counters {
  wakeAt: number;
  onClock: number;
}

/** `mute`: onClock decides nothing (a core that has nothing to do when woken). */
function alarmCore(counters: Counters, mute = false): ActorCore<AlarmTypes> {
  return {
    decide(state, command) {
      if (command.type === "open") return { events: [{ type: "Opened", userId: "u-1" }], reply: { ok: true } };
      if (state === undefined) return { events: [], reply: { ok: false } };
      return { events: [{ type: "AlarmSet", at: command.at }], reply: { ok: true } };
    },
    apply(state, event) {
      if (event.type === "Opened") return { userId: event.userId, alarms: [], rang: [] };
      if (state === undefined) throw new Error(`${event.type} before Opened`);
      if (event.type === "AlarmSet") state.alarms.push(event.at);
      else {
        state.alarms = state.alarms.filter((at) => at !== event.at);
        state.rang.push([event.at, event.now]);
      }
      return state;
    },
    query(state) {
      return state === undefined ? null : structuredClone(state);
    },
    userId(state) {
      return state.userId;
    },
    wakeAt(state) {
      counters.wakeAt++;
      return state.alarms.length === 0 ? undefined : Math.min(...state.alarms);
    },
    onClock(state, ctx) {
      counters.onClock++;
      if (mute) return [];
      return state.alarms.filter((at) => at <= ctx.now).map((at) => ({ type: "Rang", at, now: ctx.now }));
    },
    outbox(_state, event) {
      return event.type === "Rang" ? [{ type: "alarm.rang", at: event.now, data: JSON.stringify(event) }] : [];
    },
    eventTime(event) {
      return event.type === "Rang" ? event.now : undefined;
    },
  };
}

/**
 * A core with no wake time of its own: an account notes the first price at or above 100 it is decided at,
 * by a market update or by the clock (which decides at the current market).
 */
function thresholdCore(): ActorCore<AlarmTypes> {
  const crossed = (state: AlarmState, tick: number, now: number): AlarmEvent[] =>
    tick >= 100 && state.rang.length === 0 ? [{ type: "Rang", at: tick, now }] : [];
  return {
    ...alarmCore({ wakeAt: 0, onClock: 0 }),
    updateMarket: (_market, update) => update,
    wakeAt: () => undefined,
    onMarket: (state, _update, ctx) => crossed(state, ctx.market?.tick ?? 0, ctx.now),
    onClock: (state, ctx) => crossed(state, ctx.market?.tick ?? 0, ctx.now),
  };
}

/** `base` with an `apply` that throws on every Rang (a core bug), counting the throws. */
function throwingOnRang(base: ActorCore<AlarmTypes>): { core: ActorCore<AlarmTypes>; failures: number } {
  const failing = {
    failures: 0,
    core: {
      ...base,
      apply(state: AlarmState | undefined, event: AlarmEvent): AlarmState {
        if (event.type === "Rang") {
          failing.failures++;
          throw new Error("core bug");
        }
        return base.apply(state, event);
      },
    },
  };
  return failing;
}

/** The in-memory journal, reading back the alarms rung. */
class AlarmJournal extends MemoryJournal {
  rang(): AlarmEvent[] {
    return this.events.filter((row) => row.type === "Rang").map((row) => JSON.parse(row.payload) as AlarmEvent);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(5);
  }
}

function startShard(journal: AlarmJournal, core: ActorCore<AlarmTypes>, now?: () => number) {
  const { shard, send } = startTestShard(core, journal, now);
  const command = async (accountId: string, cmd: AlarmTypes["command"]) => {
    const response = await send({ kind: "command", to: { accountId }, command: cmd });
    expect(response.kind).toBe("commandReply");
  };
  const stop = () => send({ kind: "stop" });
  return { shard, send, command, stop };
}

describe("the shard's clock", () => {
  it("decides an account when its wake time comes, with no message for it: journaled, with its outbox entry", async () => {
    const counters = { wakeAt: 0, onClock: 0 };
    const journal = new AlarmJournal();
    const { command, send, stop } = startShard(journal, alarmCore(counters));
    await send({ kind: "start" });
    const [a, b] = [randomUUID(), randomUUID()];
    await command(a, { type: "open" });
    await command(b, { type: "open" });
    const now = Date.now();
    // The later one first: the earlier alarm must bring the timer forward.
    await command(a, { type: "set", at: now + 160 });
    await command(b, { type: "set", at: now + 80 });

    await until(() => journal.rang().length === 2);
    const rang = journal.rang() as Extract<AlarmEvent, { type: "Rang" }>[];
    // Each rang at or after its time (how soon after is the timer's business, not a test's on a busy machine);
    // both in one clock batch when the machine was slow enough for both to be due, so compare without order.
    expect(rang.map((event) => event.at).sort((x, y) => x - y)).toEqual([now + 80, now + 160]);
    for (const event of rang) expect(event.now).toBeGreaterThanOrEqual(event.at);
    expect(journal.outbox.map((row) => `${row.accountId} ${row.type}`).sort()).toEqual(
      [`${b} alarm.rang`, `${a} alarm.rang`].sort(),
    );
    const state = await send({ kind: "query", to: { accountId: a }, query: { type: "state" } });
    expect(state).toMatchObject({
      kind: "queryResult",
      result: { alarms: [], rang: [[now + 160, rang.find((event) => event.at === now + 160)?.now]] },
    });
    // Nothing left to wake: no further decision.
    const calls = counters.onClock;
    await sleep(100);
    expect(counters.onClock).toBe(calls);
    await stop();
  });

  it("runs no clock while no account has a wake time", async () => {
    const counters = { wakeAt: 0, onClock: 0 };
    const journal = new AlarmJournal();
    const { command, send, stop } = startShard(journal, alarmCore(counters));
    await send({ kind: "start" });
    const ids = Array.from({ length: 20 }, () => randomUUID());
    for (const id of ids) await command(id, { type: "open" });
    const appends = journal.appends;
    await sleep(150);
    expect(counters.onClock).toBe(0);
    expect(journal.appends).toBe(appends);
    // One question per account that got events, nothing more.
    expect(counters.wakeAt).toBe(ids.length);
    await stop();
  });

  it("forgets an account the core had nothing to do for, until its next event (no busy loop)", async () => {
    const counters = { wakeAt: 0, onClock: 0 };
    const journal = new AlarmJournal();
    const { command, send, stop } = startShard(journal, alarmCore(counters, true));
    await send({ kind: "start" });
    const a = randomUUID();
    await command(a, { type: "open" });
    await command(a, { type: "set", at: Date.now() + 20 });
    await until(() => counters.onClock === 1);
    await sleep(150);
    expect(counters.onClock).toBe(1);
    // Its next event asks again: still due, so woken again once.
    await command(a, { type: "set", at: Date.now() + 10_000 });
    await until(() => counters.onClock === 2);
    await sleep(100);
    expect(counters.onClock).toBe(2);
    await stop();
  });

  it("retries a clock decision whose commit failed, a second later, and journals it once", async () => {
    const counters = { wakeAt: 0, onClock: 0 };
    const journal = new AlarmJournal();
    const { command, send, stop } = startShard(journal, alarmCore(counters));
    await send({ kind: "start" });
    const a = randomUUID();
    await command(a, { type: "open" });
    const at = Date.now() + 30;
    await command(a, { type: "set", at });
    journal.failNext = 1;
    await until(() => counters.onClock === 1);
    expect(journal.rang()).toEqual([]);
    await until(() => journal.rang().length === 1);
    const [event] = journal.rang() as Extract<AlarmEvent, { type: "Rang" }>[];
    expect(event?.now).toBeGreaterThanOrEqual(at + 900);
    expect(counters.onClock).toBe(2);
    await sleep(100);
    expect(journal.rang()).toHaveLength(1);
    await stop();
  });

  it("after a rebuild, never dates a decision before an event it replayed, though the wall clock went back", async () => {
    const journal = new AlarmJournal();
    const ahead = 3_600_000;
    const first = startShard(journal, alarmCore({ wakeAt: 0, onClock: 0 }), () => Date.now() + ahead);
    await first.send({ kind: "start" });
    const a = randomUUID();
    await first.command(a, { type: "open" });
    await first.command(a, { type: "set", at: Date.now() + ahead });
    await until(() => journal.rang().length === 1);
    await first.stop();
    const [rung] = journal.rang() as Extract<AlarmEvent, { type: "Rang" }>[];

    // Restarted on a wall clock an hour behind the one that dated the journal's last event.
    const second = startShard(journal, alarmCore({ wakeAt: 0, onClock: 0 }));
    await second.send({ kind: "start" });
    await second.command(a, { type: "set", at: Date.now() - 1 });
    await until(() => journal.rang().length === 2);
    const later = journal.rang()[1] as Extract<AlarmEvent, { type: "Rang" }>;
    expect(later.now).toBeGreaterThanOrEqual(rung?.now ?? Number.POSITIVE_INFINITY);
    await second.stop();
  });

  it("decides again, at the current market, an account whose price update failed to commit", async () => {
    const journal = new AlarmJournal();
    const { send, command, stop } = startShard(journal, thresholdCore());
    await send({ kind: "start" });
    const a = randomUUID();
    await command(a, { type: "open" });
    journal.failNext = 1;
    const failed = await send({ kind: "market", update: { tick: 150 } });
    expect(failed.kind).toBe("failed");
    expect(journal.rang()).toEqual([]);
    // No further price: the shard reloads the account and decides it at the view's 150 a little later.
    await until(() => journal.rang().length === 1);
    expect(journal.rang()[0]).toMatchObject({ type: "Rang", at: 150 });
    await stop();
  });

  it("gives back what a dropped batch's decisions took from the view (onUndecided), newest first", async () => {
    const journal = new AlarmJournal();
    const decided: string[] = [];
    const undecided: string[] = [];
    const core: ActorCore<AlarmTypes> = {
      ...thresholdCore(),
      onDecided: (_market, events) => decided.push(...events.map((e) => e.type)),
      onUndecided: (_market, events) => undecided.push(...events.map((e) => e.type)),
    };
    const { send, command, stop } = startShard(journal, core);
    await send({ kind: "start" });
    const a = randomUUID();
    const b = randomUUID();
    await command(a, { type: "open" });
    await command(b, { type: "open" });
    expect(undecided).toEqual([]);
    journal.failNext = 1;
    expect((await send({ kind: "market", update: { tick: 150 } })).kind).toBe("failed");
    // Both accounts decided a Rang, then the commit failed: both are given back.
    expect(undecided).toEqual(["Rang", "Rang"]);
    await until(() => journal.rang().length === 2);
    expect(undecided).toEqual(["Rang", "Rang"]);
    expect(decided.filter((type) => type === "Rang")).toHaveLength(4);
    await stop();
  });

  it("does not retry an account whose events the core failed to apply (no loop on a core bug)", async () => {
    const journal = new AlarmJournal();
    const failing = throwingOnRang(thresholdCore());
    const { send, command, stop } = startShard(journal, failing.core);
    await send({ kind: "start" });
    const a = randomUUID();
    await command(a, { type: "open" });
    expect((await send({ kind: "market", update: { tick: 150 } })).kind).toBe("failed");
    expect(failing.failures).toBe(1);
    // Two retry periods with nothing sent: the account is not decided again by the clock.
    await sleep(2_500);
    expect(failing.failures).toBe(1);
    await stop();
  });

  it("after a throwing apply, retries the batch's other accounts at the current market, never the culprit", async () => {
    const journal = new AlarmJournal();
    let failures = 0;
    const base = thresholdCore();
    const core: ActorCore<AlarmTypes> = {
      ...base,
      // An account with an alarm at -1 is the one the core cannot apply a Rang for.
      apply(state, event) {
        if (event.type === "Rang" && state?.alarms.includes(-1) === true) {
          failures++;
          throw new Error("core bug");
        }
        return base.apply(state, event);
      },
    };
    const { send, command, stop } = startShard(journal, core);
    await send({ kind: "start" });
    const good = randomUUID();
    const bad = randomUUID();
    await command(good, { type: "open" });
    await command(bad, { type: "open" });
    await command(bad, { type: "set", at: -1 });
    expect((await send({ kind: "market", update: { tick: 150 } })).kind).toBe("failed");
    expect(failures).toBe(1);
    // The good account, decided before the throw and dropped with the batch, is decided again a second later.
    await until(() => journal.rang().length === 1);
    await sleep(1_500);
    expect(failures).toBe(1);
    expect(journal.rang()).toHaveLength(1);
    await stop();
  });

  it("does not loop on an account whose own wake time makes the core throw in apply", async () => {
    const journal = new AlarmJournal();
    const failing = throwingOnRang(alarmCore({ wakeAt: 0, onClock: 0 }));
    const { send, command, stop } = startShard(journal, failing.core);
    await send({ kind: "start" });
    const a = randomUUID();
    await command(a, { type: "open" });
    await command(a, { type: "set", at: Date.now() + 30 });
    await until(() => failing.failures === 1);
    await sleep(2_500);
    expect(failing.failures).toBe(1);
    // A command decides it again: its clock is back.
    await command(a, { type: "set", at: Date.now() + 30 });
    await until(() => failing.failures === 2);
    await stop();
  });

  it("still wakes a parked account at a wake time of its own that was to come when it was parked", async () => {
    const journal = new AlarmJournal();
    let failures = 0;
    const base = alarmCore({ wakeAt: 0, onClock: 0 });
    const core: ActorCore<AlarmTypes> = {
      ...base,
      updateMarket: (_market, update) => update,
      // A price update makes a Rang for alarm -1, which the core cannot apply (a bug): the account is parked.
      onMarket: (_state, _update, ctx) => [{ type: "Rang", at: -1, now: ctx.now }],
      apply(state, event) {
        if (event.type === "Rang" && event.at === -1) {
          failures++;
          throw new Error("core bug");
        }
        return base.apply(state, event);
      },
    };
    const { send, command, stop } = startShard(journal, core);
    await send({ kind: "start" });
    const a = randomUUID();
    await command(a, { type: "open" });
    const at = Date.now() + 1_500;
    await command(a, { type: "set", at });
    expect((await send({ kind: "market", update: { tick: 1 } })).kind).toBe("failed");
    expect(failures).toBe(1);
    // No message reaches it again; its alarm, still to come when it was parked, rings all the same.
    await until(() => journal.rang().length === 1, 6_000);
    expect(journal.rang()[0]).toMatchObject({ type: "Rang", at });
    expect(failures).toBe(1);
    await stop();
  });

  it("keeps an account's own later wake time when a failed commit asked for an earlier retry", async () => {
    const journal = new AlarmJournal();
    const { send, command, stop } = startShard(journal, alarmCore({ wakeAt: 0, onClock: 0 }));
    await send({ kind: "start" });
    const a = randomUUID();
    await command(a, { type: "open" });
    const at = Date.now() + 2_000;
    await command(a, { type: "set", at });
    // A later command's commit fails: the account is evicted and woken about 1 s later, before its alarm.
    journal.failNext = 1;
    const failed = await send({ kind: "command", to: { accountId: a }, command: { type: "set", at: at + 60_000 } });
    expect(failed.kind).toBe("failed");
    await until(() => journal.rang().length === 1, 6_000);
    expect(journal.rang()[0]).toMatchObject({ type: "Rang", at });
    await stop();
  });

  it("wakes, after a rebuild, an account whose time passed while no shard held it", async () => {
    const journal = new AlarmJournal();
    const first = startShard(journal, alarmCore({ wakeAt: 0, onClock: 0 }));
    await first.send({ kind: "start" });
    const a = randomUUID();
    await first.command(a, { type: "open" });
    const at = Date.now() + 60_000;
    await first.command(a, { type: "set", at });
    await first.stop();
    expect(journal.rang()).toEqual([]);

    // Restarted once the alarm's time passed (a clock 61 s ahead).
    const counters = { wakeAt: 0, onClock: 0 };
    const shard = new Shard<AlarmTypes>({
      shard: 0,
      shards: 1,
      core: alarmCore(counters),
      journal,
      maxBatch: 64,
      close: () => Promise.resolve(),
      now: () => Date.now() + 61_000,
    });
    await shard.enqueue({ kind: "start", requestId: 1 });
    await until(() => journal.rang().length === 1);
    expect(journal.rang()[0]).toMatchObject({ type: "Rang", at });
    await shard.enqueue({ kind: "stop", requestId: 2 });
  });
});

describe("a standby's shard (following)", () => {
  it("notes the wake times it follows but decides none until it serves, then decides them", async () => {
    const journal = new AlarmJournal();
    const owner = startShard(journal, alarmCore({ wakeAt: 0, onClock: 0 }));
    const id = randomUUID();
    // An alarm a minute away, journaled by the owner before the follower starts.
    await owner.command(id, { type: "open" });
    await owner.command(id, { type: "set", at: Date.now() + 60_000 });
    await owner.stop();
    const follower = new Shard<AlarmTypes>({
      shard: 0,
      shards: 1,
      core: alarmCore({ wakeAt: 0, onClock: 0 }),
      journal,
      maxBatch: 64,
      close: () => Promise.resolve(),
      following: true,
    });
    let requestId = 1;
    const send = (request: Unnumbered<ShardRequest<AlarmTypes>>) =>
      follower.enqueue({ ...request, requestId: requestId++ });
    expect((await send({ kind: "start" })).kind).toBe("started");
    // An alarm due now, journaled by the owner after the follower's rebuild.
    const second = startShard(journal, alarmCore({ wakeAt: 0, onClock: 0 }));
    await second.command(id, { type: "set", at: Date.now() - 1 });
    await second.stop();
    expect(await send({ kind: "follow" })).toMatchObject({ kind: "followed", accounts: 1, events: 1 });
    await sleep(100);
    expect(journal.rang()).toEqual([]);
    expect(await send({ kind: "query", to: { accountId: id }, query: { type: "state" } })).toMatchObject({
      kind: "failed",
      error: { code: "engine_not_serving" },
    });
    const fence = { owner: "standby", epochs: { 0: 2 } };
    expect(await send({ kind: "serve", fence })).toMatchObject({ kind: "followed", events: 0 });
    expect(journal.fence).toEqual(fence);
    await until(() => journal.rang().length === 1);
    await send({ kind: "stop" });
  });
});
