import { describe, expect, it } from "vitest";
import { profileFileName, shortUrl, summarizeProfile, type CpuProfile } from "./cpuprofile.js";

const frame = (functionName: string, url = "", lineNumber = 0) => ({ functionName, url, lineNumber });

/** root → main → {hot, cold}; plus idle and GC at the root. */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 5, 6] },
    { id: 2, callFrame: frame("main", "file:///repo/gateway/main.ts", 9), children: [3, 4] },
    { id: 3, callFrame: frame("hot", "file:///repo/node_modules/express/lib/router.js", 41) },
    { id: 4, callFrame: frame("", "file:///repo/gateway/v1/orders.ts", 0) },
    { id: 5, callFrame: frame("(idle)") },
    { id: 6, callFrame: frame("(garbage collector)") },
    // The same function reached by another path: summed with node 3.
    { id: 7, callFrame: frame("hot", "file:///repo/node_modules/express/lib/router.js", 41) },
  ],
  startTime: 1_000,
  endTime: 11_000,
  // Each sample lasts until the next: hot 3 ms + 1 ms, anonymous 1 ms, idle 4 ms, GC 1 ms.
  samples: [3, 3, 3, 4, 5, 5, 6, 7],
  timeDeltas: [0, 1_000, 1_000, 1_000, 1_000, 3_000, 1_000, 1_000],
};

describe("summarizeProfile", () => {
  it("sums self time per function over the tree, heaviest first, as shares of the busy time", () => {
    const summary = summarizeProfile(PROFILE, 2, "/repo");
    expect(summary).toEqual({
      totalMs: 10,
      idleMs: 4,
      busyMs: 6,
      gcMs: 1,
      programMs: 0,
      top: [
        { name: "hot express/lib/router.js:42", selfMs: 4, share: 0.667 },
        // ties keep the order they were met in
        { name: "(anonymous) gateway/v1/orders.ts:1", selfMs: 1, share: 0.167 },
      ],
    });
  });

  it("copes with a profile without samples", () => {
    const summary = summarizeProfile({ nodes: [], startTime: 0, endTime: 5 }, 5);
    expect(summary.top).toEqual([]);
    expect(summary.busyMs).toBe(0);
  });
});

describe("names", () => {
  it("shortens URLs to the project or the package", () => {
    expect(shortUrl("file:///repo/engine/core.ts", "/repo")).toBe("engine/core.ts");
    expect(shortUrl("file:///repo/node_modules/@grpc/grpc-js/build/src/server.js", "/repo/")).toBe(
      "@grpc/grpc-js/build/src/server.js",
    );
    expect(shortUrl("node:internal/streams/readable", "/repo")).toBe("node:internal/streams/readable");
  });

  it("reads pid and thread from node's profile file names", () => {
    expect(profileFileName("CPU.20261123.011502.4242.0.001.cpuprofile")).toEqual({ pid: 4242, tid: 0 });
    expect(profileFileName("CPU.20261123.011502.4242.3.007.cpuprofile")).toEqual({ pid: 4242, tid: 3 });
    expect(profileFileName("heap.cpuprofile")).toBeUndefined();
  });
});
