import { describe, expect, it } from "vitest";
import { coreScenariosArg, SCENARIOS } from "./bench-engine-core.js";

describe("coreScenariosArg", () => {
  it("runs every scenario without the flag, the named ones with it, and refuses an unknown name", () => {
    expect(coreScenariosArg(["node", "bench-engine.ts", "--only=core"])).toBeUndefined();
    expect(coreScenariosArg(["--only=core", "--core-scenarios=market,limit"])).toEqual(["market", "limit"]);
    expect(SCENARIOS).toEqual(["limit", "market", "mix", "limit+shell"]);
    expect(() => coreScenariosArg(["--core-scenarios=limit,fast"])).toThrow(/unknown core scenario fast/);
  });
});
