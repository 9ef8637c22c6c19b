import { describe, expect, it } from "vitest";
import { SCOPES, isScope, satisfies, type Scope } from "./scopes.js";

describe("isScope", () => {
  it.each(SCOPES)("accepts %s", (scope) => {
    expect(isScope(scope)).toBe(true);
  });

  it.each(["", "read_only", "Trade", " TRADE", "TRADE ", "ADMIN", "WITHDRAW", "toString", "constructor"])(
    "refuses %j",
    (value) => {
      expect(isScope(value)).toBe(false);
    },
  );
});

describe("satisfies", () => {
  // granted (one scope) × required → allowed: READ_ONLY by any scope, TRADE by TRADE or MANAGE_ORDERS,
  // MANAGE_ORDERS only by MANAGE_ORDERS.
  const table: [granted: Scope, required: Scope, allowed: boolean][] = [
    ["READ_ONLY", "READ_ONLY", true],
    ["TRADE", "READ_ONLY", true],
    ["MANAGE_ORDERS", "READ_ONLY", true],
    ["READ_ONLY", "TRADE", false],
    ["TRADE", "TRADE", true],
    ["MANAGE_ORDERS", "TRADE", true],
    ["READ_ONLY", "MANAGE_ORDERS", false],
    ["TRADE", "MANAGE_ORDERS", false],
    ["MANAGE_ORDERS", "MANAGE_ORDERS", true],
  ];

  it("covers every pair of granted and required scope", () => {
    expect(table).toHaveLength(SCOPES.length * SCOPES.length);
  });

  it.each(table)(
    "when a key holds only %s and the endpoint requires %s then allowed is %s",
    (granted, required, allowed) => {
      expect(satisfies([granted], required)).toBe(allowed);
    },
  );

  const multi: [granted: Scope[], required: Scope, allowed: boolean][] = [
    [["READ_ONLY", "TRADE"], "READ_ONLY", true],
    [["READ_ONLY", "TRADE"], "TRADE", true],
    [["READ_ONLY", "TRADE"], "MANAGE_ORDERS", false],
    [["READ_ONLY", "MANAGE_ORDERS"], "TRADE", true],
    [["READ_ONLY", "MANAGE_ORDERS"], "MANAGE_ORDERS", true],
    [["TRADE", "MANAGE_ORDERS"], "MANAGE_ORDERS", true],
    [["MANAGE_ORDERS", "READ_ONLY"], "MANAGE_ORDERS", true],
    [["READ_ONLY", "READ_ONLY"], "TRADE", false],
    [["READ_ONLY", "TRADE", "MANAGE_ORDERS"], "READ_ONLY", true],
    [["READ_ONLY", "TRADE", "MANAGE_ORDERS"], "TRADE", true],
    [["READ_ONLY", "TRADE", "MANAGE_ORDERS"], "MANAGE_ORDERS", true],
  ];

  it.each(multi)(
    "when a key holds %j and the endpoint requires %s then allowed is %s",
    (granted, required, allowed) => {
      expect(satisfies(granted, required)).toBe(allowed);
    },
  );

  it.each(SCOPES)("when a key holds no scope at all then %s is refused", (required) => {
    expect(satisfies([], required)).toBe(false);
  });
});
