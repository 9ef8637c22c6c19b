// Helpers for the tests of deploy/: the metric names a PromQL expression reads, the series names a /metrics
// page exports, and promtool (Debian's `prometheus` package; a missing binary fails the test, never skips it).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const DEPLOY = path.join(ROOT, "deploy");

/** Names the query language reserves (operators and modifiers that look like identifiers). */
const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless"]);
const KEYWORDS_TOO = new Set(["offset", "bool", "inf", "nan"]);
/** Series Prometheus makes itself rather than scraping them. */
const SYNTHETIC = new Set(["up", "scrape_duration_seconds", "scrape_samples_scraped"]);

/** The metric names `expr` selects (series names as exported, e.g. `…_bucket`), without Prometheus's own. */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ")
    .replace(/\[[^\]]*\]/g, " ");
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![\w.$])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (name === undefined || call !== undefined) continue; // a function
    if (KEYWORDS.has(name) || KEYWORDS_TOO.has(name.toLowerCase()) || SYNTHETIC.has(name)) continue;
    names.add(name);
  }
  return [...names];
}

/** Every series name on a Prometheus text page. */
export function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const name = /^[a-zA-Z_:][\w:]*/.exec(line)?.[0];
    if (name !== undefined) names.add(name);
  }
  return names;
}

export interface Promtool {
  status: number;
  output: string;
}

/** Runs promtool; throws (fails the test) when it is not installed. */
export function promtool(args: readonly string[], input?: string): Promtool {
  const result = spawnSync("promtool", args, { cwd: ROOT, input, encoding: "utf8" });
  if (result.error !== undefined) {
    throw new Error(`promtool not runnable (apt-get install -y prometheus): ${result.error.message}`);
  }
  return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

export interface AlertRule {
  alert: string;
  expr: string;
  annotations: Record<string, string>;
}

/** The alerting rules of deploy/prometheus/alerts.yml. */
export function alertRules(): AlertRule[] {
  const parsed = parseYaml(readFileSync(path.join(DEPLOY, "prometheus", "alerts.yml"), "utf8")) as {
    groups: { rules: AlertRule[] }[];
  };
  return parsed.groups.flatMap((group) => group.rules);
}

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

/** Every PromQL expression of the dashboard, with the title of its panel. */
export function dashboardQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(
    readFileSync(path.join(DEPLOY, "grafana", "dashboards", "funded-trading.json"), "utf8"),
  ) as { panels: Panel[] };
  const walk = (panels: readonly Panel[]): { panel: string; expr: string }[] =>
    panels.flatMap((panel) => [
      ...(panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
      ...walk(panel.panels ?? []),
    ]);
  return walk(dashboard.panels);
}

/** GitHub's anchor of a Markdown heading. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, "")
    .replace(/ /g, "-");
}
