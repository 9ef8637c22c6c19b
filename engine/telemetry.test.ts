import { describe, expect, it } from "vitest";
import { apply, type AccountState } from "./core.js";
import { Harness } from "./core.testing.js";
import { accountStateOf, parseTallyKey, tallyEvent, tallyKey, type Tally } from "./telemetry.js";

/** Replays the harness's journal as the shard does, tallying each event against the state it produced. */
function tallies(h: Harness): Record<string, number> {
  const counts: Record<string, number> = {};
  let state: AccountState | undefined;
  for (const event of h.journal) {
    state = apply(state, event);
    tallyEvent(state, event, (key) => {
      counts[key] = (counts[key] ?? 0) + 1;
    });
  }
  return counts;
}

describe("engine tallies", () => {
  it("count orders by kind and outcome, rejections by their first rule, and fills by kind and liquidity", () => {
    const h = new Harness().open();
    h.quote("BTC-USD", "100000");
    const resting = h.placed({ symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.01", limit_price: "90000" });
    h.cancel(resting.order.order_id);
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" });
    expect(h.place({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.2" }).kind).toBe("rejected");

    expect(tallies(h)).toEqual({
      "orders|LIMIT|accepted|none": 1,
      "orders|LIMIT|canceled|none": 1,
      "orders|MARKET|accepted|none": 1,
      "fills|MARKET|TAKER": 1,
      "orders|MARKET|filled|none": 1,
      "orders|MARKET|rejected|insufficient_margin": 1,
    });
    expect(accountStateOf(h.account)).toBe("ACTIVE");
  });

  it("never put an id in a series key", () => {
    const h = new Harness().open();
    h.quote("BTC-USD", "100000");
    h.placed({ symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01", client_id: "bot-7" });
    for (const key of Object.keys(tallies(h))) {
      expect(key).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}/);
      expect(key).not.toContain("bot-7");
    }
  });

  it.each<Tally>([
    { metric: "orders", kind: "STOP", outcome: "expired", rule: "none" },
    { metric: "fills", kind: "LIMIT", liquidity: "MAKER" },
    { metric: "terminations", rule: "daily_loss_limit" },
  ])("round-trip a series through its key: %o", (tally) => {
    expect(parseTallyKey(tallyKey(tally))).toEqual(tally);
  });

  it("ignore keys they do not know", () => {
    expect(parseTallyKey("orders|LIMIT|exploded|none")).toBeUndefined();
    expect(parseTallyKey("webhooks|x")).toBeUndefined();
  });
});
