import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ServiceError } from "../../kernel/errors.js";
import { parse } from "./validation.js";

describe("parse", () => {
  const Body = z.strictObject({
    flag: z.boolean(),
    orders: z.array(z.unknown(), { message: "must be an array" }),
    amount: z.union([z.number(), z.string()], { message: "must be a number or a decimal string" }),
  });
  const issuesOf = (value: unknown): unknown => {
    try {
      parse(Body, value);
    } catch (error) {
      if (error instanceof ServiceError) return error.fields.issues;
      throw error;
    }
    throw new Error("expected a refusal");
  };

  it("answers a missing field as required (a union's too) and a field of the wrong type with its own message", () => {
    expect(issuesOf({})).toEqual([
      { path: "flag", message: "required" },
      { path: "orders", message: "required" },
      { path: "amount", message: "required" },
    ]);
    expect(issuesOf({ flag: "yes", orders: {}, amount: true })).toEqual([
      { path: "flag", message: "Invalid input: expected boolean, received string" },
      { path: "orders", message: "must be an array" },
      { path: "amount", message: "must be a number or a decimal string" },
    ]);
  });
});
