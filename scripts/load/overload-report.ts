// Figures of one overload step from its requests, and the table the benchmark prints (docs/performance.md,
// "Overload").
import { answeredNot503, type Outcome, type StepPlan, type Verdict } from "./overload-plan.js";
import { table } from "./report.js";
import { percentile, round } from "./stats.js";

/** One request of a step; times are ms from the step's start, `end` NaN without an answer. */
export interface StepRow {
  due: number;
  sent: number;
  end: number;
  outcome: Outcome;
  label: string;
  wellBehaved: boolean;
}

export interface GeneratorFigures {
  /** The load generator's own CPU (user + system) per request it sent, µs. */
  cpuUsPerRequest: number;
  /** Its CPU over the step's wall time: 1 is one core busy all the time. */
  cpuShareOfCore: number;
  peakOutstanding: number;
}

export interface StepSummary extends StepPlan {
  durationMs: number;
  /** Requests due in the step, sent or not. */
  due: number;
  sentPerSecond: number;
  /** Due but not sent: the flood's requests in flight were at the generator's cap. */
  overflow: number;
  /** 2xx answered before the step's end, per second of the step. */
  goodputPerSecond: number;
  goodputShare: number;
  answered: number;
  /** p99 from due to answer of the HTTP answers that are not 503. */
  answeredP99Ms: number;
  shed: number;
  shedP99Ms: number;
  unavailable: number;
  internal: number;
  rateLimited: number;
  refused: number;
  /** Sent without an HTTP answer: the socket failed, or no answer came by the end of the drain. */
  noAnswer: number;
  counts: Record<string, number>;
  sendLagP99Ms: number;
  wellBehaved: {
    due: number;
    ok: number;
    /** From due to answer over all its requests; one without an answer counts as infinitely late. */
    p99Ms: number;
    rateLimited: number;
    shed: number;
  };
  generator: GeneratorFigures;
}

const p99 = (values: number[]): number => percentile(Float64Array.from(values).sort(), 99);

export function summarizeStep(
  plan: StepPlan,
  durationMs: number,
  capacityPerSecond: number,
  rows: readonly StepRow[],
  generator: GeneratorFigures,
): StepSummary {
  const counts: Record<string, number> = {};
  const by: Record<Outcome, number> = {
    ok: 0,
    shed: 0,
    rate_limited: 0,
    internal: 0,
    unavailable: 0,
    refused: 0,
    other: 0,
    socket: 0,
    timeout: 0,
    overflow: 0,
  };
  const answered: number[] = [];
  const shed: number[] = [];
  const lag: number[] = [];
  const wb: number[] = [];
  const wbBy = { due: 0, ok: 0, rateLimited: 0, shed: 0 };
  for (const row of rows) {
    counts[row.label] = (counts[row.label] ?? 0) + 1;
    by[row.outcome]++;
    const latency = row.end - row.due;
    if (row.outcome !== "overflow") lag.push(row.sent - row.due);
    if (answeredNot503(row.outcome)) answered.push(latency);
    if (row.outcome === "shed") shed.push(latency);
    if (!row.wellBehaved) continue;
    wbBy.due++;
    if (row.outcome === "ok") wbBy.ok++;
    if (row.outcome === "rate_limited") wbBy.rateLimited++;
    if (row.outcome === "shed") wbBy.shed++;
    wb.push(Number.isNaN(row.end) ? Infinity : latency);
  }
  const seconds = durationMs / 1000;
  // 2xx answered inside the step: the answers a queue still gives after the step's end are not its goodput.
  const goodput = rows.filter((r) => r.outcome === "ok" && r.end < durationMs).length / seconds;
  return {
    ...plan,
    durationMs,
    due: rows.length,
    sentPerSecond: round((rows.length - by.overflow) / seconds, 1),
    overflow: by.overflow,
    goodputPerSecond: round(goodput, 1),
    goodputShare: round(goodput / capacityPerSecond, 3),
    answered: answered.length,
    answeredP99Ms: round(p99(answered)),
    shed: by.shed,
    shedP99Ms: round(p99(shed)),
    unavailable: by.unavailable,
    internal: by.internal,
    rateLimited: by.rate_limited,
    refused: by.refused,
    noAnswer: by.socket + by.timeout,
    counts,
    sendLagP99Ms: round(p99(lag)),
    wellBehaved: { ...wbBy, p99Ms: round(p99(wb)) },
    generator,
  };
}

const pct = (share: number): string => `${Math.round(share * 1000) / 10}%`;
const num = (value: number): string => (Number.isNaN(value) ? "-" : String(round(value, 1)));

/** The per-step table, the statuses of each step, the generator's cost and the verdicts. */
export function formatOverload(title: string, steps: readonly StepSummary[], verdicts: readonly Verdict[]): string {
  const lines = [title, ""];
  lines.push(
    table([
      [
        "step",
        "offered/s",
        "keys",
        "sent/s",
        "overflow",
        "2xx/s",
        "of cap",
        "p99 answered",
        "shed",
        "p99 shed",
        "other 503",
        "500",
        "429",
        "no answer",
        "wb p99",
        "wb 2xx",
      ],
      ...steps.map((s) => [
        `${s.multiplier}×`,
        Math.round(s.offeredPerSecond),
        s.floodKeys + 1,
        s.sentPerSecond,
        s.overflow,
        s.goodputPerSecond,
        pct(s.goodputShare),
        num(s.answeredP99Ms),
        s.shed,
        num(s.shedP99Ms),
        s.unavailable,
        s.internal,
        s.rateLimited,
        s.noAnswer,
        num(s.wellBehaved.p99Ms),
        `${s.wellBehaved.ok}/${s.wellBehaved.due}`,
      ]),
    ]),
  );
  lines.push(
    "  p99s in ms from each request's due time (open loop); keys: flood keys + the well-behaved key (wb); " +
      "overflow: due but not sent (the generator's cap on requests in flight)",
  );
  for (const s of steps) {
    const statuses = Object.entries(s.counts)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k}: ${v}`)
      .join(", ");
    lines.push(`  ${s.multiplier}×: ${statuses}`);
    lines.push(
      `      generator ${s.generator.cpuUsPerRequest} µs CPU/request, ${pct(s.generator.cpuShareOfCore)} of a core, ` +
        `peak ${s.generator.peakOutstanding} in flight, send lag p99 ${num(s.sendLagP99Ms)} ms`,
    );
  }
  lines.push("");
  for (const v of verdicts) lines.push(`${v.met ? "met   " : "MISSED"}  ${v.target}: ${v.value}`);
  return lines.join("\n");
}
