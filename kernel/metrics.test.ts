import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promtool } from "../test/harness/prometheus.js";
import { createRegistry } from "./metrics.js";

/** The sum of the samples of `name` on a text page. */
function sumOf(page: string, name: string): number {
  return page
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
}

describe("a process's registry", () => {
  const server = http.createServer();
  let page = "";

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    page = await createRegistry("test").metrics();
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("passes promtool check metrics with prom-client's default metrics", () => {
    expect(promtool(["check", "metrics"], page)).toEqual({ status: 0, output: "" });
  });

  it("exports the active handles, requests and resources of every type as …_all, none as a _total gauge", () => {
    expect(page).not.toMatch(/^nodejs_active_\w+_total/m);
    for (const what of ["handles", "requests", "resources"]) {
      expect(page, what).toMatch(new RegExp(`^# TYPE nodejs_active_${what}_all gauge$`, "m"));
    }
    expect(sumOf(page, "nodejs_active_handles_all")).toBeGreaterThan(0);
    expect(sumOf(page, "nodejs_active_handles_all")).toBe(sumOf(page, "nodejs_active_handles"));
    expect(sumOf(page, "nodejs_active_resources_all")).toBe(sumOf(page, "nodejs_active_resources"));
  });
});
