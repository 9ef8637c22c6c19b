// A rolling restart under load (docs/runbook.md, "Roll the gateways"; docs/scale-out.md, "Hand-over"):
// PostgreSQL and Redis, two engine owners and a standby (ownersAndStandby in test/harness/roll.ts), two gateways
// behind a balancer that polls their /readyz, and 12 keys, each with one account, trading at a steady pace
// (orders, cancels, reads). Every engine process is SIGTERMed in turn (the waiting standby takes its index and
// the stopped process comes back as the next standby), then every gateway (restarted on its port, waited for
// ready). No request fails, every order answered 201 appears exactly once in its account's history, and every
// account's books equal those its control twin (same engine, same script, run after the roll with nothing
// restarting) ends with.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownersAndStandby, rollAll, startRollStack, unavailableReasons, type RollStack } from "../harness/roll.js";
import { books, orderHistory, startLoad, type LoadAccount } from "../harness/steady-load.js";

const KEYS = 12;
/** Steps every account runs before the roll starts, and at least after it ended. */
const STEPS_AROUND = 3;
/** One step per account per second: about 70 requests/s in all, a steady load a shared 2-core machine carries. */
const PACE_MS = 1_000;

describe("rolling restart of every engine and gateway under load", () => {
  let roll: RollStack;
  let started: RollStack | undefined;

  beforeAll(async () => {
    started = await startRollStack(ownersAndStandby(), KEYS);
    roll = started;
  });

  afterAll(async () => {
    await started?.stop();
  });

  it("fails no request, places each order once, and leaves the books of a run without restarts", async () => {
    const { balancer, traders } = roll;
    let rolled = false;
    const stepsAtEnd = new Map<string, number>();
    const load = startLoad(balancer, traders, {
      paceMs: PACE_MS,
      more: (who, step) => {
        if (!rolled) return true;
        if (!stepsAtEnd.has(who.account)) stepsAtEnd.set(who.account, step);
        return step < (stepsAtEnd.get(who.account) ?? 0) + STEPS_AROUND;
      },
    });
    const everyAccount = (steps: number): boolean => [...load.result.runs.values()].every((run) => run.steps >= steps);
    while (!everyAccount(STEPS_AROUND)) await new Promise((resolve) => setTimeout(resolve, 50));
    const steps = await rollAll(roll);
    rolled = true;
    const during = await load.done;

    // Every process stopped cleanly (exit 0), and nothing failed.
    expect(steps.map((step) => [step.what, step.exitCode])).toEqual([
      ["engine 0", 0],
      ["engine 1", 0],
      ["engine 0", 0],
      ["gateway 0", 0],
      ["gateway 1", 0],
    ]);
    expect(during.failures, unavailableReasons(roll.stack).join("\n")).toEqual([]);

    // The control twins run the same number of steps, nothing restarting meanwhile.
    const twinOf = new Map<string, LoadAccount>(traders.map((trader) => [trader.control.account, trader]));
    const control = await startLoad(
      balancer,
      traders.map((trader) => trader.control),
      {
        paceMs: PACE_MS,
        more: (who, step) => step < (during.runs.get(twinOf.get(who.account)?.account ?? "")?.steps ?? 0),
      },
    ).done;
    expect(control.failures).toEqual([]);

    for (const trader of traders) {
      const run = during.runs.get(trader.account);
      expect(run?.steps).toBeGreaterThanOrEqual(2 * STEPS_AROUND);
      // Every order answered 201 appears exactly once in its account's history, and nothing else does.
      const listed = (await orderHistory(balancer, trader)).map((order) => String(order.order_id));
      expect([...listed].sort()).toEqual([...(run?.placed ?? [])].sort());
      // The same books as the run without restarts.
      expect(await books(balancer, trader)).toEqual(await books(balancer, trader.control));
    }
  }, 600_000);
});
