import { describe, expect, it } from "vitest";
import { CATALOGUE } from "../market/catalogue.js";
import { closeFingerprint, orderFingerprint } from "./fingerprint.js";
import { normalizeClose, normalizePlaceOrder, type ClosePositionRequest, type PlaceOrderRequest } from "./request.js";

const NOW = Date.parse("2026-11-25T12:00:00.000Z");
const base: PlaceOrderRequest = { account_id: "a", symbol: "BTC-USD", side: "BUY", kind: "MARKET", quantity: "0.01" };

function normalize(patch: Partial<PlaceOrderRequest>) {
  return normalizePlaceOrder({ ...base, ...patch }, CATALOGUE, NOW);
}

function issuesOf(patch: Partial<PlaceOrderRequest>): string[] {
  const result = normalize(patch);
  return result.ok ? [] : result.issues.map((issue) => issue.path);
}

describe("place-order normalisation", () => {
  it("fills in the defaults of a market order", () => {
    const result = normalize({ symbol: "btcusd" });
    expect(result.ok && result.value).toMatchObject({
      symbol: "BTC-USD",
      quantity: 100,
      time_in_force: "IOC",
      post_only: false,
      reduce_only: false,
      index_trigger: false,
      mark_trigger: false,
      venue: null,
      client_id: null,
    });
  });

  it("puts prices on the tick grid and defaults a limit order to GTC", () => {
    const result = normalize({ kind: "LIMIT", limit_price: 96412.3, quantity: 0.0001 });
    expect(result.ok && result.value).toMatchObject({ limit_price: 964_123, quantity: 1, time_in_force: "GTC" });
  });

  it("triggers a stop on the mark unless index_trigger is set", () => {
    const mark = normalize({ kind: "STOP", trigger_price: "90000", time_in_force: "GTC" });
    const index = normalize({ kind: "STOP", trigger_price: "90000", index_trigger: true });
    expect(mark.ok && [mark.value.mark_trigger, mark.value.index_trigger]).toEqual([true, false]);
    expect(index.ok && [index.value.mark_trigger, index.value.index_trigger]).toEqual([false, true]);
  });

  it("makes GTX post-only", () => {
    const result = normalize({ kind: "LIMIT", limit_price: "90000", time_in_force: "GTX" });
    expect(result.ok && result.value.post_only).toBe(true);
  });

  it("accepts a GTD expiry in the future", () => {
    const result = normalize({
      kind: "LIMIT",
      limit_price: "90000",
      time_in_force: "GTD",
      expire_at: "2026-11-25T13:00:00.000Z",
    });
    expect(result.ok && result.value.expire_at).toBe(Date.parse("2026-11-25T13:00:00.000Z"));
  });

  it.each<[string, Partial<PlaceOrderRequest>, string[]]>([
    ["an unknown symbol", { symbol: "FOO-USD" }, ["symbol"]],
    ["a bad side", { side: "LONG" }, ["side"]],
    ["a bad kind", { kind: "ICEBERG" }, ["kind"]],
    ["a missing quantity", { quantity: null as unknown as string }, ["quantity"]],
    ["a zero quantity", { quantity: 0 }, ["quantity"]],
    ["a negative quantity", { quantity: "-0.01" }, ["quantity"]],
    ["a quantity off the step grid", { quantity: "0.00015" }, ["quantity"]],
    ["a quantity below min_quantity", { symbol: "EUR-USD", quantity: 999 }, ["quantity"]],
    ["a quantity that is not a decimal", { quantity: "1e-2" }, ["quantity"]],
    ["a limit price on a market order", { limit_price: 1 }, ["limit_price"]],
    ["a limit order without a price", { kind: "LIMIT" }, ["limit_price"]],
    ["a limit price off the tick grid", { kind: "LIMIT", limit_price: "96412.35" }, ["limit_price"]],
    ["a zero limit price", { kind: "LIMIT", limit_price: 0 }, ["limit_price"]],
    ["a trigger price on a limit order", { kind: "LIMIT", limit_price: 1, trigger_price: 1 }, ["trigger_price"]],
    ["a stop without a trigger", { kind: "STOP" }, ["trigger_price"]],
    ["a market order with GTC", { time_in_force: "GTC" }, ["time_in_force"]],
    ["a market order with GTX", { time_in_force: "GTX" }, ["time_in_force", "post_only"]],
    ["a post-only market order", { post_only: true }, ["post_only"]],
    ["a post-only stop", { kind: "STOP", trigger_price: 1, post_only: true }, ["post_only"]],
    ["a post-only IOC limit", { kind: "LIMIT", limit_price: 1, post_only: true, time_in_force: "IOC" }, ["post_only"]],
    ["an unknown time in force", { kind: "LIMIT", limit_price: 1, time_in_force: "DAY" }, ["time_in_force"]],
    ["GTD without expire_at", { kind: "LIMIT", limit_price: 1, time_in_force: "GTD" }, ["expire_at"]],
    ["expire_at without GTD", { kind: "LIMIT", limit_price: 1, expire_at: "2026-12-01T00:00:00Z" }, ["expire_at"]],
    [
      "expire_at in the past",
      { kind: "LIMIT", limit_price: 1, time_in_force: "GTD", expire_at: "2026-11-25T12:00:00.000Z" },
      ["expire_at"],
    ],
    [
      "an impossible expire_at",
      { kind: "LIMIT", limit_price: 1, time_in_force: "GTD", expire_at: "2026-02-30T00:00:00Z" },
      ["expire_at"],
    ],
    [
      "both trigger flags",
      { kind: "STOP", trigger_price: 1, index_trigger: true, mark_trigger: true },
      ["index_trigger"],
    ],
    ["a trigger flag on a limit order", { kind: "LIMIT", limit_price: 1, mark_trigger: true }, ["mark_trigger"]],
    ["a flag that is not a boolean", { reduce_only: "yes" as unknown as boolean }, ["reduce_only"]],
    ["an unknown venue", { venue: "BINANCE" }, ["venue"]],
    ["a client_id longer than 64 characters", { client_id: "x".repeat(65) }, ["client_id"]],
    ["a client_id with a control character", { client_id: "a\nb" }, ["client_id"]],
    ["an empty client_id", { client_id: "" }, ["client_id"]],
    ["several bad fields at once", { side: "X", quantity: 0, venue: "Y" }, ["side", "quantity", "venue"]],
  ])("refuses %s with one issue per field", (_label, patch, paths) => {
    expect(issuesOf(patch)).toEqual(paths);
  });

  it("fingerprints equal bodies equally, whatever their spelling", () => {
    const a = normalize({ symbol: "btc/usd", quantity: 0.01, client_id: "x" });
    const b = normalize({ symbol: "BTC-USD", quantity: "0.0100", time_in_force: "IOC", client_id: "x" });
    const c = normalize({ quantity: "0.02", client_id: "x" });
    if (!a.ok || !b.ok || !c.ok) throw new Error("expected valid requests");
    expect(orderFingerprint(a.value)).toBe(orderFingerprint(b.value));
    expect(orderFingerprint(a.value)).not.toBe(orderFingerprint(c.value));
  });
});

describe("close-position normalisation", () => {
  const close = (patch: Partial<ClosePositionRequest>) =>
    normalizeClose({ account_id: "a", symbol: "BTC-USD", ...patch }, CATALOGUE);

  it("defaults to a full MARKET IOC close", () => {
    const result = close({});
    expect(result.ok && result.value).toMatchObject({ kind: "MARKET", quantity: null, time_in_force: "IOC" });
  });

  it("takes a LIMIT close with its price and GTC", () => {
    const result = close({ kind: "LIMIT", price: "100000", quantity: "0.5" });
    expect(result.ok && result.value).toMatchObject({ limit_price: 1_000_000, quantity: 5_000, time_in_force: "GTC" });
  });

  it.each<[string, Partial<ClosePositionRequest>, string[]]>([
    ["a STOP close", { kind: "STOP" }, ["kind"]],
    ["a LIMIT close without a price", { kind: "LIMIT" }, ["price"]],
    ["a price on a MARKET close", { price: 1 }, ["price"]],
    ["a MARKET close with GTC", { time_in_force: "GTC" }, ["time_in_force"]],
    ["a GTD close", { kind: "LIMIT", price: 1, time_in_force: "GTD" }, ["time_in_force"]],
    ["a zero quantity", { quantity: 0 }, ["quantity"]],
    ["an unknown symbol", { symbol: "nope" }, ["symbol"]],
  ])("refuses %s", (_label, patch, paths) => {
    const result = close(patch);
    expect(result.ok ? [] : result.issues.map((issue) => issue.path)).toEqual(paths);
  });

  it("fingerprints a close apart from an order", () => {
    const result = close({ client_id: "c" });
    const order = normalize({ client_id: "c" });
    if (!result.ok || !order.ok) throw new Error("expected valid requests");
    expect(closeFingerprint(result.value)).not.toBe(orderFingerprint(order.value));
  });
});
