// The trading client holds its key and secret only in closures: printing or serialising a client (a log line, a
// crash report) never shows the secret.
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { TradingClient } from "../src/index.js";

describe("TradingClient credentials", () => {
  it("never appear when the client is inspected or serialised", () => {
    const client = new TradingClient({
      baseUrl: "http://127.0.0.1:1",
      apiKey: "svc_ak_visible",
      apiSecret: "svc_sk_do-not-print",
    });
    expect(inspect(client, { depth: 20, showHidden: true })).not.toContain("svc_sk_do-not-print");
    expect(JSON.stringify(client)).not.toContain("svc_sk_do-not-print");
  });
});
