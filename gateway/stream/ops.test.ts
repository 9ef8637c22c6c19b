import { describe, expect, it } from "vitest";
import { parseOp } from "./ops.js";

const A = "0A0A0A0A-0000-4000-8000-000000000001";

const issues = (text: string): unknown => {
  const parsed = parseOp(text);
  return "error" in parsed ? { code: parsed.error.code, ...parsed.error.fields, echo: parsed.echo } : parsed;
};

describe("parseOp", () => {
  it("reads account subscriptions (lower-cased id, optional after) and unsubscriptions", () => {
    expect(parseOp(JSON.stringify({ op: "subscribe", account_id: A, after: 7, id: "x" }))).toEqual({
      op: { op: "subscribe", channel: "account", accountId: A.toLowerCase(), after: 7, echo: { id: "x" } },
    });
    expect(parseOp(JSON.stringify({ op: "subscribe", account_id: A }))).toMatchObject({ op: { after: undefined } });
    expect(parseOp(JSON.stringify({ op: "unsubscribe", channel: "account", account_id: A, id: 3 }))).toEqual({
      op: { op: "unsubscribe", channel: "account", accountId: A.toLowerCase(), echo: { id: 3 } },
    });
  });

  it("reads tickers subscriptions and pings", () => {
    expect(parseOp('{"op":"subscribe","channel":"tickers","symbols":["btc"]}')).toEqual({
      op: { op: "subscribe", channel: "tickers", symbols: ["btc"], echo: {} },
    });
    expect(parseOp('{"op":"unsubscribe","channel":"tickers"}')).toMatchObject({ op: { symbols: [] } });
    expect(parseOp('{"op":"ping","id":1}')).toEqual({ op: { op: "ping", echo: { id: 1 } } });
  });

  it("refuses what is not an operation with one issue per bad field, echoing a good id", () => {
    expect(issues("nope")).toEqual({
      code: "invalid_payload",
      issues: [{ path: "", message: "must be a JSON object" }],
      echo: {},
    });
    expect(issues("[1]")).toMatchObject({ issues: [{ path: "" }] });
    expect(issues('{"op":"dance","id":"d"}')).toMatchObject({ issues: [{ path: "op" }], echo: { id: "d" } });
    expect(issues('{"op":"subscribe","channel":"orders"}')).toMatchObject({ issues: [{ path: "channel" }] });
    expect(issues('{"op":"subscribe","account_id":"x","after":-1}')).toMatchObject({
      issues: [{ path: "account_id" }, { path: "after" }],
    });
    expect(issues(JSON.stringify({ op: "subscribe", account_id: A, after: 1.5 }))).toMatchObject({
      issues: [{ path: "after" }],
    });
    expect(issues('{"op":"subscribe","channel":"tickers","symbols":"BTC"}')).toMatchObject({
      issues: [{ path: "symbols" }],
    });
    expect(issues(JSON.stringify({ op: "ping", id: "x".repeat(65) }))).toMatchObject({
      issues: [{ path: "id" }],
      echo: {},
    });
    expect(
      issues(JSON.stringify({ op: "subscribe", channel: "tickers", symbols: Array(201).fill("BTC") })),
    ).toMatchObject({
      issues: [{ path: "symbols" }],
    });
  });

  it("answers a message nested 30,000 deep as any other message, without walking into it", () => {
    const deep = "[".repeat(30_000) + "]".repeat(30_000);
    expect(issues(deep)).toMatchObject({ code: "invalid_payload", issues: [{ path: "" }] });
    expect(parseOp(`{"op":"ping","id":1,"extra":${deep}}`)).toEqual({ op: { op: "ping", echo: { id: 1 } } });
    expect(issues(`{"op":${deep}}`)).toMatchObject({ issues: [{ path: "op" }] });
  });
});
