// Turns a recording into the summary (JSON) and the table the driver prints.
import { OPERATIONS, classOf, expectedStatus, type Operation } from "./mix.js";
import { NO_ANSWER, type RunOutcome } from "./run.js";
import { bucketCounts, maxInWindow, round, spread, summarize, windowBounds, type LatencySummary } from "./stats.js";

export interface ReportSettings {
  scenario: string;
  keys: number;
  ratePerMinute: number;
  /** The measured part of the run, after the warm-up. */
  durationMs: number;
  /** Sent at the same rates before the measured part: in the rolling windows and the timeline, not in the figures. */
  warmupMs?: number;
  /** The rate limit the target enforces (per key per window), for the verdicts. */
  limit: number;
  windowMs: number;
  /** How long the target may hold a request for its slot (RATE_LIMIT_MAX_DELAY_MS); unknown when absent. */
  maxDelayMs?: number;
  target: string;
  /** Only keys up to this many are listed one by one. */
  listKeys?: number;
}

export interface KeyWindow {
  key: number;
  sent: number;
  accepted: number;
  rateLimited: number;
  /** Accepted (2xx) per window-long bucket from the start, by answer time. */
  acceptedPerWindow: number[];
  /** Most accepted in any rolling window, by answer time. */
  maxRolling: number;
  /**
   * The same by send time. The gateway counts a request before the engine's work, but a held request at the
   * slot it waited for (up to maxDelayMs after it arrived), so this may exceed the limit with every window at
   * the server within it: it is not a verdict.
   */
  maxRollingBySend: number;
  /**
   * The true most in any rolling window at the server lies in [certain, possible] (see stats.windowBounds): the
   * gateway counts each request, held or not, between its send and its answer. `certain` above the limit is the
   * only proof of a broken limit the client can have.
   */
  certain: number;
  possible: number;
}

export interface Summary {
  settings: ReportSettings;
  sent: number;
  answered: number;
  unanswered: number;
  requestsPerSecond: number;
  acceptedPerSecond: number;
  /** From when each request was due to its answer (open loop: includes any send delay). */
  latencyMs: LatencySummary;
  /** From the actual send to the answer. */
  serviceMs: LatencySummary;
  /** How late sends left after their due time. */
  sendLagMs: LatencySummary;
  statuses: Record<string, number>;
  /** The warm-up, when there was one (its requests are left out of every other figure but the keys' windows). */
  warmup?: { requests: number; p99: number; max: number; rateLimited: number; errors: number };
  rateLimited: number;
  /** Answers that were neither the expected status nor 429, by status ("socket", "timeout" without an answer). */
  errors: Record<string, number>;
  errorCount: number;
  errorSamples: Record<string, string>;
  operations: Record<string, { count: number; accepted: number; p50: number; p99: number; max: number }>;
  mix: Record<string, number>;
  keysSummary: {
    maxRolling: { min: number; median: number; max: number };
    maxRollingBySend: { min: number; median: number; max: number };
    certain: { min: number; median: number; max: number };
    possible: { min: number; median: number; max: number };
    acceptedPerWindow: { min: number; median: number; max: number }[];
  };
  keys: KeyWindow[];
  /** Every 10 s: requests/s, p99 from due, 429s and errors. */
  timeline: { fromS: number; rps: number; p99: number; rateLimited: number; errors: number }[];
  client: { cpuUsPerRequest: number; socketsOpened: number; peakSockets: number; queued: number };
}

const TIMELINE_MS = 10_000;

export function summarizeRun(outcome: RunOutcome, settings: ReportSettings): Summary {
  const r = outcome.recording;
  const n = r.size;
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const latency: number[] = [];
  const service: number[] = [];
  const lag: number[] = [];
  const perOp = new Map<Operation, { count: number; accepted: number; latency: number[] }>();
  const mixCounts: Record<string, number> = {};
  const keyAccepted: number[][] = Array.from({ length: settings.keys }, () => []);
  const keyAcceptedSent: number[][] = Array.from({ length: settings.keys }, () => []);
  const keyIntervals: { from: number; to: number }[][] = Array.from({ length: settings.keys }, () => []);
  const keySent = new Array<number>(settings.keys).fill(0);
  const keyLimited = new Array<number>(settings.keys).fill(0);
  const warmupMs = settings.warmupMs ?? 0;
  const totalMs = warmupMs + settings.durationMs;
  const buckets = Math.max(1, Math.ceil(totalMs / TIMELINE_MS));
  const warm = { requests: 0, latency: [] as number[], rateLimited: 0, errors: 0 };
  const timeline = Array.from({ length: buckets }, () => ({
    count: 0,
    latency: [] as number[],
    limited: 0,
    errors: 0,
  }));
  let answered = 0;
  let accepted = 0;
  let rateLimited = 0;
  let errorCount = 0;

  for (let i = 0; i < n; i++) {
    const status = r.status[i] ?? NO_ANSWER.timeout;
    const op = r.operation(i);
    const key = r.key[i] ?? 0;
    const due = r.due[i] ?? 0;
    const sent = r.sent[i] ?? 0;
    const end = r.end[i] ?? NaN;
    const label = status === NO_ANSWER.timeout ? "timeout" : status === NO_ANSWER.socket ? "socket" : String(status);
    keySent[key] = (keySent[key] ?? 0) + 1;
    const slot = timeline[Math.min(buckets - 1, Math.floor(due / TIMELINE_MS))];
    if (slot !== undefined) slot.count++;
    if (status > 0) slot?.latency.push(end - due);
    if (status >= 200 && status < 300) {
      keyAccepted[key]?.push(end);
      keyAcceptedSent[key]?.push(sent);
      keyIntervals[key]?.push({ from: sent, to: end });
    }
    const bad = status !== 429 && status !== expectedStatus(op);
    if (status === 429) {
      keyLimited[key] = (keyLimited[key] ?? 0) + 1;
      if (slot !== undefined) slot.limited++;
    } else if (bad && slot !== undefined) slot.errors++;
    if (due < warmupMs) {
      warm.requests++;
      if (status > 0) warm.latency.push(end - due);
      if (status === 429) warm.rateLimited++;
      else if (bad) warm.errors++;
      continue;
    }
    statuses[label] = (statuses[label] ?? 0) + 1;
    mixCounts[classOf(op)] = (mixCounts[classOf(op)] ?? 0) + 1;
    lag.push(sent - due);
    let stats = perOp.get(op);
    if (stats === undefined) perOp.set(op, (stats = { count: 0, accepted: 0, latency: [] }));
    stats.count++;
    if (status > 0) {
      answered++;
      latency.push(end - due);
      service.push(end - sent);
      stats.latency.push(end - due);
    }
    if (status >= 200 && status < 300) accepted++;
    if (status === 429) {
      rateLimited++;
    } else if (bad) {
      errorCount++;
      errors[label] = (errors[label] ?? 0) + 1;
    } else {
      stats.accepted++;
    }
  }

  const windows = Math.max(1, Math.ceil(totalMs / settings.windowMs));
  const keys: KeyWindow[] = keyAccepted.map((times, key) => {
    const bounds = windowBounds(keyIntervals[key] ?? [], settings.windowMs);
    return {
      key,
      sent: keySent[key] ?? 0,
      accepted: times.length,
      rateLimited: keyLimited[key] ?? 0,
      acceptedPerWindow: bucketCounts(times, settings.windowMs, windows),
      maxRolling: maxInWindow(times, settings.windowMs),
      maxRollingBySend: maxInWindow(keyAcceptedSent[key] ?? [], settings.windowMs),
      certain: bounds.certain,
      possible: bounds.possible,
    };
  });
  const seconds = settings.durationMs / 1000;
  const operations: Summary["operations"] = {};
  for (const op of OPERATIONS) {
    const s = perOp.get(op);
    if (s === undefined) continue;
    const l = summarize(s.latency);
    operations[op] = { count: s.count, accepted: s.accepted, p50: l.p50, p99: l.p99, max: l.max };
  }
  const mix: Record<string, number> = {};
  const measuredCount = n - warm.requests;
  for (const [k, v] of Object.entries(mixCounts)) mix[k] = round((100 * v) / Math.max(1, measuredCount), 1);
  const errorSamples: Record<string, string> = {};
  for (const [k, v] of r.samples) if (!k.endsWith(" 429")) errorSamples[k] = v;
  const unanswered = statuses.timeout ?? 0;

  return {
    settings,
    sent: measuredCount,
    answered,
    unanswered,
    requestsPerSecond: round(answered / seconds, 1),
    acceptedPerSecond: round(accepted / seconds, 1),
    latencyMs: summarize(latency),
    serviceMs: summarize(service),
    sendLagMs: summarize(lag),
    statuses,
    ...(warmupMs > 0
      ? {
          warmup: {
            requests: warm.requests,
            p99: summarize(warm.latency).p99,
            max: summarize(warm.latency).max,
            rateLimited: warm.rateLimited,
            errors: warm.errors,
          },
        }
      : {}),
    rateLimited,
    errors,
    errorCount,
    errorSamples,
    operations,
    mix,
    keysSummary: {
      maxRolling: spread(keys.map((k) => k.maxRolling)),
      maxRollingBySend: spread(keys.map((k) => k.maxRollingBySend)),
      certain: spread(keys.map((k) => k.certain)),
      possible: spread(keys.map((k) => k.possible)),
      acceptedPerWindow: Array.from({ length: windows }, (_, w) =>
        spread(keys.map((k) => k.acceptedPerWindow[w] ?? 0)),
      ),
    },
    keys,
    timeline: timeline.map((t, i) => ({
      fromS: (i * TIMELINE_MS) / 1000,
      rps: round(t.count / (Math.min(TIMELINE_MS, totalMs - i * TIMELINE_MS) / 1000), 1),
      p99: summarize(t.latency).p99,
      rateLimited: t.limited,
      errors: t.errors,
    })),
    client: {
      cpuUsPerRequest: round((outcome.clientCpuMs * 1000) / Math.max(1, n), 1),
      socketsOpened: outcome.pool.opened,
      peakSockets: outcome.pool.peakOpen,
      queued: outcome.pool.queued,
    },
  };
}

/** Rows as aligned text columns: the first left-aligned, the others right-aligned. */
export function table(rows: (string | number)[][]): string {
  const cells = rows.map((row) => row.map(String));
  const widths = cells[0]?.map((_, c) => Math.max(...cells.map((row) => (row[c] ?? "").length))) ?? [];
  return cells
    .map((row) =>
      row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join("  "),
    )
    .join("\n");
}

const entries = (record: Record<string, number>): string =>
  Object.keys(record).length === 0
    ? "none"
    : Object.entries(record)
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ");

export function formatSummary(s: Summary): string {
  const { settings } = s;
  const w = settings.windowMs / 1000;
  const lines: string[] = [];
  lines.push(
    `scenario ${settings.scenario}: ${settings.keys} keys × ${settings.ratePerMinute}/min for ${settings.durationMs / 1000} s ` +
      `against ${settings.target} (limit ${settings.limit} per ${w} s` +
      `${settings.maxDelayMs === undefined ? "" : `, early requests held up to ${settings.maxDelayMs} ms`})`,
  );
  lines.push("");
  const l = s.latencyMs;
  lines.push(
    table([
      ["requests", "req/s", "2xx/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "429s", "errors"],
      [s.sent, s.requestsPerSecond, s.acceptedPerSecond, l.p50, l.p95, l.p99, l.max, s.rateLimited, s.errorCount],
    ]),
  );
  lines.push(
    `latency counts from the due time (open loop); from the actual send: p50 ${s.serviceMs.p50}, p99 ${s.serviceMs.p99}, ` +
      `max ${s.serviceMs.max} ms; sends left p99 ${s.sendLagMs.p99} ms (max ${s.sendLagMs.max} ms) after due`,
  );
  if (s.warmup !== undefined) {
    lines.push(
      `after a warm-up of ${(settings.warmupMs ?? 0) / 1000} s at the same rates, left out of the figures above: ` +
        `${s.warmup.requests} requests, p99 ${s.warmup.p99} ms, max ${s.warmup.max} ms, ` +
        `${s.warmup.rateLimited} 429s, ${s.warmup.errors} errors`,
    );
  }
  lines.push(`statuses: ${entries(s.statuses)}`);
  lines.push(`errors by status: ${entries(s.errors)}`);
  for (const [k, v] of Object.entries(s.errorSamples)) lines.push(`  first ${k}: ${v}`);
  lines.push(`mix (% of requests): ${entries(s.mix)}`);
  lines.push("");
  lines.push(
    table([
      ["operation", "count", "ok", "p50 ms", "p99 ms", "max ms"],
      ...Object.entries(s.operations).map(([op, o]) => [op, o.count, o.accepted, o.p50, o.p99, o.max]),
    ]),
  );
  lines.push("");
  const perWindow = s.keysSummary.acceptedPerWindow.map((_, i) => `${i * w}-${(i + 1) * w}s`);
  lines.push(`accepted (2xx) per key, per ${w} s from the start and in the busiest rolling ${w} s window:`);
  const listed = settings.listKeys ?? 5;
  if (s.keys.length <= listed) {
    lines.push(
      table([
        ["key", "sent", "2xx", "429", ...perWindow, "max rolling", "by send", "bounds"],
        ...s.keys.map((k) => [
          k.key,
          k.sent,
          k.accepted,
          k.rateLimited,
          ...k.acceptedPerWindow,
          k.maxRolling,
          k.maxRollingBySend,
          `${k.certain}–${k.possible}`,
        ]),
      ]),
    );
  } else {
    const fmt = (x: { min: number; median: number; max: number }): string => `${x.min}/${x.median}/${x.max}`;
    lines.push(
      table([
        ["over keys", ...perWindow, "max rolling", "by send", "certain", "possible"],
        [
          "min/median/max",
          ...s.keysSummary.acceptedPerWindow.map(fmt),
          fmt(s.keysSummary.maxRolling),
          fmt(s.keysSummary.maxRollingBySend),
          fmt(s.keysSummary.certain),
          fmt(s.keysSummary.possible),
        ],
      ]),
    );
  }
  lines.push(
    `  max rolling: by answer time; by send: by send time (a held request counts at its slot, after its send, so` +
      ` this may exceed the limit when the server's windows do not); bounds: the server counted each request` +
      ` between its send and its answer, so its busiest window held between "certain" and "possible" of them`,
  );
  const worst = Math.max(...s.keys.map((k) => k.certain));
  if (worst > settings.limit) lines.push(`  LIMIT BROKEN: a key certainly got ${worst} > ${settings.limit} in ${w} s`);
  lines.push("");
  lines.push(
    table([
      ["from s", "req/s", "p99 ms", "429s", "errors"],
      ...s.timeline.map((t) => [t.fromS, t.rps, t.p99, t.rateLimited, t.errors]),
    ]),
  );
  lines.push("");
  lines.push(
    `client: ${s.client.cpuUsPerRequest} µs CPU per request, ${s.client.socketsOpened} sockets opened ` +
      `(peak ${s.client.peakSockets} open), ${s.client.queued} requests waited for a socket; ${s.unanswered} unanswered`,
  );
  return lines.join("\n");
}
