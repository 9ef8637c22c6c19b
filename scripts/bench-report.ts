// Pure helpers of the benchmark reports: median and spread of repeated measurements, number formatting, and
// the markdown tables (`npm run bench` writes its summary with them to bench/results.md).

export interface Spread {
  n: number;
  median: number;
  min: number;
  max: number;
  /** Quartiles (the medians of the lower and upper halves; for n < 4 they are min and max). */
  q1: number;
  q3: number;
}

function medianOfSorted(sorted: readonly number[]): number {
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

/** Median, min, max and quartiles of `values` (NaN throughout when empty; non-finite values are left out). */
export function spread(values: readonly number[]): Spread {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { n, median: NaN, min: NaN, max: NaN, q1: NaN, q3: NaN };
  const half = Math.floor(n / 2);
  return {
    n,
    median: medianOfSorted(sorted),
    min: sorted[0] ?? NaN,
    max: sorted[n - 1] ?? NaN,
    q1: n < 4 ? (sorted[0] ?? NaN) : medianOfSorted(sorted.slice(0, half)),
    q3: n < 4 ? (sorted[n - 1] ?? NaN) : medianOfSorted(sorted.slice(n - half)),
  };
}

/**
 * A figure for a table: whole numbers with thousands separators from 100 up, three significant digits
 * below (0.112, 4.57, 25.2), "-" for what is not a number.
 */
export function formatValue(value: number): string {
  if (!Number.isFinite(value)) return "-";
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString("en-US");
  if (value === 0) return "0";
  return String(Number(value.toPrecision(3)));
}

/** A ratio with two decimals ("0.66"), "-" when it is not a number. */
export function formatRatio(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(2);
}

/** A markdown table, columns padded to their widest cell. */
export function table(rows: readonly (readonly (string | number)[])[]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => String(row[c] ?? "").length))) ?? [];
  const line = (row: readonly (string | number)[]): string =>
    `| ${row.map((cell, c) => String(cell).padEnd(widths[c] ?? 0)).join(" | ")} |`;
  const [head, ...body] = rows;
  if (head === undefined) return "";
  return [line(head), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...body.map(line)].join("\n");
}

/** One line of the summary: the repeated measurements of a figure, its ratios and its target. */
export interface FigureRow {
  figure: string;
  unit: string;
  /** One value per round (or per repetition). */
  values: readonly number[];
  /** Median over the architecture ceiling's median, and over bare node:http's (throughput figures only). */
  toCeiling?: number;
  /** This figure's round over the ceiling's round next to it, per round: the ratio's spread. */
  toCeilingPerRound?: readonly number[];
  toBare?: number;
  target?: { text: string; ok: boolean };
}

/** The summary table: figure, median, spread (min–max over n), ratios, target, met. */
export function figureTable(rows: readonly FigureRow[]): string {
  return table([
    [
      "figure",
      "unit",
      "median",
      "spread: min–max (n)",
      "× arch. ceiling (per round)",
      "× bare node:http",
      "target",
      "met?",
    ],
    ...rows.map((row) => {
      const s = spread(row.values);
      return [
        row.figure,
        row.unit,
        formatValue(s.median),
        s.n === 0 ? "-" : `${formatValue(s.min)}–${formatValue(s.max)} (${s.n})`,
        row.toCeilingPerRound === undefined || row.toCeilingPerRound.length === 0
          ? formatRatio(row.toCeiling)
          : `${formatRatio(row.toCeiling)} (${formatRatio(spread(row.toCeilingPerRound).min)}–${formatRatio(spread(row.toCeilingPerRound).max)})`,
        formatRatio(row.toBare),
        row.target?.text ?? "",
        row.target === undefined ? "" : row.target.ok ? "met" : "**missed**",
      ];
    }),
  ]);
}
