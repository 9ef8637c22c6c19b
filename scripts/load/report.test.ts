import { describe, expect, it } from "vitest";
import type { Operation } from "./mix.js";
import { formatSummary, summarizeRun, type ReportSettings } from "./report.js";
import { NO_ANSWER, Recording, type RunOutcome } from "./run.js";

function outcome(rows: { due: number; latency?: number; status: number; op: Operation; key?: number }[]): RunOutcome {
  const recording = new Recording();
  for (const row of rows) {
    const i = recording.add(row.due, row.due, row.key ?? 0, row.op);
    if (row.status !== NO_ANSWER.timeout) {
      recording.end[i] = row.due + (row.latency ?? 1);
      recording.status[i] = row.status;
    }
  }
  return {
    recording,
    lastDueMs: Math.max(...rows.map((r) => r.due)),
    elapsedMs: 0,
    clientCpuMs: 0,
    pool: { opened: 1, peakOpen: 1, queued: 0 },
    unanswered: 0,
  };
}

const settings: ReportSettings = {
  scenario: "per-key",
  keys: 1,
  ratePerMinute: 60,
  durationMs: 10_000,
  limit: 3,
  windowMs: 2_000,
  target: "test",
};

describe("summarizeRun", () => {
  it("tells 429s from errors, and errors by status, against each operation's expected status", () => {
    const s = summarizeRun(
      outcome([
        { due: 0, status: 200, op: "account" },
        { due: 1000, status: 201, op: "place-limit" },
        { due: 2000, status: 200, op: "place-limit" },
        { due: 3000, status: 429, op: "orders" },
        { due: 4000, status: 500, op: "summary" },
        { due: 5000, status: NO_ANSWER.socket, op: "summary" },
        { due: 6000, status: NO_ANSWER.timeout, op: "summary" },
      ]),
      settings,
    );
    expect(s.rateLimited).toBe(1);
    expect(s.errors).toEqual({ "200": 1, "500": 1, socket: 1, timeout: 1 });
    expect(s.errorCount).toBe(4);
    expect(s.unanswered).toBe(1);
    expect(s.answered).toBe(5);
    expect(s.operations["place-limit"]).toMatchObject({ count: 2, accepted: 1 });
  });

  it("counts a key's accepted requests per window and in the busiest rolling window", () => {
    // Accepted at 0, 500, 1000, 1500 (answered 1 ms later), 2500: the window [500, 2500) holds 3, [0, 2000) 4.
    const s = summarizeRun(
      outcome([0, 500, 1000, 1500, 2500].map((due) => ({ due, status: 200, op: "account" as const }))),
      settings,
    );
    expect(s.keys[0]).toMatchObject({ accepted: 5, acceptedPerWindow: [4, 1, 0, 0, 0], maxRolling: 4 });
  });

  it("judges the limit by the send-to-answer bounds, which a held request cannot fool, not by send time", () => {
    // Limit 3 per 2 s: three requests at 0, 10 and 20 ms; one sent at 1,990 ms that the gateway held for the
    // slot freeing at 2,000 ms and answered at 2,015. By send time [0, 2000) holds 4; the server never held more
    // than 3, and no window certainly holds the fourth with the other three.
    const s = summarizeRun(
      outcome([
        { due: 0, status: 200, op: "account" },
        { due: 10, status: 200, op: "account" },
        { due: 20, status: 200, op: "account" },
        { due: 1990, status: 200, op: "account", latency: 25 },
      ]),
      { ...settings, maxDelayMs: 100 },
    );
    expect(s.keys[0]).toMatchObject({ maxRollingBySend: 4, certain: 3, possible: 4 });
    const text = formatSummary(s);
    expect(text).not.toMatch(/LIMIT BROKEN/);
    expect(text).toMatch(/held up to 100 ms/);
  });

  it("leaves the warm-up out of the figures but not out of the keys' windows", () => {
    const s = summarizeRun(
      outcome([
        { due: 0, status: 500, op: "account", latency: 900 },
        { due: 500, status: 429, op: "account" },
        { due: 1000, status: 200, op: "account", latency: 5 },
        { due: 1500, status: 200, op: "account", latency: 7 },
      ]),
      { ...settings, warmupMs: 1000, durationMs: 1000 },
    );
    expect(s.warmup).toEqual({ requests: 2, p99: 900, max: 900, rateLimited: 1, errors: 1 });
    expect(s.sent).toBe(2);
    expect(s.errorCount).toBe(0);
    expect(s.rateLimited).toBe(0);
    expect(s.latencyMs.max).toBe(7);
    expect(s.requestsPerSecond).toBe(2);
    expect(s.keys[0]).toMatchObject({ sent: 4, accepted: 2, rateLimited: 1 });
  });
});
