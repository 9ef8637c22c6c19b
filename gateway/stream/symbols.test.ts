import { describe, expect, it } from "vitest";
import type { ListTickersResponse__Output } from "../../proto/gen/engine/v1/ListTickersResponse.js";
import { symbolResolver } from "./symbols.js";

const listing = (...symbols: string[]): ListTickersResponse__Output =>
  ({ data: symbols.map((symbol) => ({ symbol })) }) as unknown as ListTickersResponse__Output;

describe("symbolResolver", () => {
  it("names a listed symbol in every spelling REST accepts, and refuses a bare base like an unknown symbol", async () => {
    const resolve = symbolResolver(() => Promise.resolve(listing("BTC-USD", "ETH-USD")));
    expect(await Promise.all(["BTC/USD", "btcusd", "btc-usd", "Btc_Usd", "BTC-USD"].map(resolve))).toEqual(
      Array(5).fill("BTC-USD"),
    );
    expect(await resolve("btc")).toBeUndefined();
    expect(await resolve("SOL-USD")).toBeUndefined();
  });

  it("reads the listing once, and again after a failed read", async () => {
    let calls = 0;
    const resolve = symbolResolver(() => {
      calls += 1;
      return calls === 1 ? Promise.reject(new Error("engine down")) : Promise.resolve(listing("ETH-USD"));
    });
    await expect(resolve("eth/usd")).rejects.toThrow("engine down");
    expect(await resolve("eth/usd")).toBe("ETH-USD");
    expect(await resolve("ethusd")).toBe("ETH-USD");
    expect(calls).toBe(2);
  });
});
