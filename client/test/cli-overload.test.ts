// `ftrade` when the service sheds: the client's throttle refusing the last attempt is an error line and exit
// code 1, like a network failure, not a crash. The service is a stubbed `fetch` that answers every request
// `503 overloaded`; Math.random is 0, so the throttle refuses every attempt once one was shed, and the retry
// waits run on fake timers.
import { afterEach, describe, expect, it, vi } from "vitest";
import { EXIT, main } from "../src/cli.js";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("ftrade on 503 overloaded", () => {
  it("prints that the client's throttle refused the request and exits 1", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0);
    const fetched = vi
      .spyOn(globalThis, "fetch")
      .mockImplementation(() =>
        Promise.resolve(new Response(JSON.stringify({ error: "overloaded", retry_after_ms: 0 }), { status: 503 })),
      );
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const stderr: string[] = [];
    const run = main(["tickers"], {
      env: {
        FTRADE_URL: "http://service.test",
        FTRADE_API_KEY: "svc_ak_overload",
        FTRADE_API_SECRET: "svc_sk_overload",
        FTRADE_PROFILE_FILE: "/nonexistent/ftrade-profiles.json",
      },
      stdout: { write: () => true },
      stderr: { write: (text: string) => stderr.push(text) },
    });
    await vi.runAllTimersAsync();
    expect(await run).toBe(EXIT.error);
    expect(fetched).toHaveBeenCalledTimes(1);
    expect(stderr.filter((line) => line.startsWith("retrying"))).toHaveLength(5);
    expect(stderr.at(-1)).toMatch(/^error: overloaded: refused by the client's adaptive throttle after 6 attempt/);
  });
});
