import { describe, expect, it } from "vitest";
import { UUID_PATTERN, isUuid } from "./uuid.js";

describe("isUuid", () => {
  it("accepts a UUID in lower, upper and mixed case", () => {
    expect(isUuid("0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d")).toBe(true);
    expect(isUuid("0A1B2C3D-4E5F-6A7B-8C9D-0E1F2A3B4C5D")).toBe(true);
    expect(isUuid("0a1B2c3D-4e5f-6A7b-8c9d-0E1f2a3b4c5d")).toBe(true);
  });

  it.each([
    "",
    "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d",
    "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5",
    "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d0",
    "{0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d}",
    "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5g",
    " 0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d",
    "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d\n",
  ])("refuses %j", (value) => {
    expect(isUuid(value)).toBe(false);
  });

  it("answers the same for the same value twice (the pattern keeps no position)", () => {
    const id = "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d";
    expect([UUID_PATTERN.test(id), UUID_PATTERN.test(id)]).toEqual([true, true]);
  });
});
