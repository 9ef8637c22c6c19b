import { describe, expect, it } from "vitest";
import { joinHostPort } from "./address.js";

describe("joinHostPort", () => {
  it.each([
    ["127.0.0.1", 50051, "127.0.0.1:50051"],
    ["0.0.0.0", 0, "0.0.0.0:0"],
    ["wallet", 50052, "wallet:50052"],
    ["engine-0.engine.trading.svc", "50051", "engine-0.engine.trading.svc:50051"],
    ["::1", 50051, "[::1]:50051"],
    ["::", 0, "[::]:0"],
    ["2001:db8::7", 8080, "[2001:db8::7]:8080"],
    ["::ffff:127.0.0.1", 9101, "[::ffff:127.0.0.1]:9101"],
  ])("joins %s and %s as %s", (host, port, joined) => {
    expect(joinHostPort(host, port)).toBe(joined);
  });
});
