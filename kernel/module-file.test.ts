import { describe, expect, it } from "vitest";
import { loaderArgs, moduleExtension, siblingModule } from "./module-file.js";

describe("a module's form", () => {
  it("is the sources through tsx for a .ts module", () => {
    const source = "file:///app/engine/main.ts";
    expect(moduleExtension(source)).toBe(".ts");
    expect(siblingModule(source, "./trading-core")).toBe("/app/engine/trading-core.ts");
    expect(loaderArgs(source)).toEqual(["--import", "tsx"]);
  });

  it("is the compiled build, with no loader, for a .js module", () => {
    const compiled = "file:///app/dist/scripts/start.js";
    expect(moduleExtension(compiled)).toBe(".js");
    expect(siblingModule(compiled, "../wallet/main")).toBe("/app/dist/wallet/main.js");
    expect(loaderArgs(compiled)).toEqual([]);
  });
});
