// Every metric the Grafana dashboard and the alert rules read is exported by the running stack after a
// scripted session (key, account, orders, a cancel, a fill, a 429), no label carries an id, every
// /metrics page passes `promtool check metrics`, and METRICS_ENABLED=false records no request-path metric.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { newKey, v1, type CreatedKey, type JsonResponse } from "../harness/client.js";
import { marketClient, type Market } from "../harness/market.js";
import { alertRules, dashboardQueries, exportedNames, metricNamesIn, promtool } from "../harness/prometheus.js";

const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
const RATE_LIMIT = 40;

/** The engine's webhook module's metrics (engine/webhooks/metrics.ts), which the dashboard and alerts read. */
const WEBHOOK_METRICS = [
  "webhook_deliveries_total",
  "webhook_attempt_duration_seconds",
  "webhook_outbox_backlog",
  "webhook_outbox_oldest_age_seconds",
] as const;

/**
 * Histograms whose samples only appear after an event this session does not cause (a delivery attempt to a
 * receiver needs an HTTPS endpoint; test/e2e's webhook tests cover it): declared (HELP/TYPE) is enough.
 */
const DECLARED_ONLY = new Set(["webhook_attempt_duration_seconds"]);

/** Series names exported by a page, plus the _bucket/_sum/_count names of the histograms it declares. */
function exportedOrDeclared(page: string): string[] {
  const declared = [...page.matchAll(/^# TYPE (\w+) histogram$/gm)]
    .map((m) => m[1] ?? "")
    .filter((family) => DECLARED_ONLY.has(family))
    .flatMap((family) => ["_bucket", "_sum", "_count"].map((suffix) => family + suffix));
  return [...exportedNames(page), ...declared];
}

async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** The sum of the samples of `name` on a page whose labels include `labels`. */
function total(page: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of page.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const found = new Map([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([label, value]) => found.get(label) === value)) sum += Number(match[3]);
  }
  return sum;
}

describe("metrics of the running stack", () => {
  let stack: TestStack;
  let market: Market;
  let trader: CreatedKey;
  let accountId = "";
  let orderId = "";
  const pages: Record<"gateway" | "wallet" | "engine", string> = { gateway: "", wallet: "", engine: "" };

  beforeAll(async () => {
    stack = await stackOn("pglite", {
      env: { PRICE_FEED: "push", ENGINE_STATS_INTERVAL_MS: "200" },
      gatewayEnv: { RATE_LIMIT_MAX: String(RATE_LIMIT) },
    });
    market = marketClient(stack.engineGrpc);
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    trader = await newKey(gateway.api, "metrics-trader", {
      label: "algo",
      permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
    });
    await market.push({ "BTC-USD": 50_000 });
    const post = (path: string, body: unknown): Promise<JsonResponse> =>
      v1(gateway.v1, path, trader, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const created = await post("/v1/account", { plan_id: PLAN_10K, label: "metrics" });
    expect(created.status).toBe(201);
    accountId = String(created.body.account_id);
    const order = (body: Record<string, unknown>): Promise<JsonResponse> =>
      post("/v1/order", { account_id: accountId, symbol: "BTC-USD", side: "BUY", ...body });
    const resting = await order({ kind: "LIMIT", quantity: "0.01", limit_price: "40000" });
    expect(resting.status).toBe(201);
    orderId = (resting.body.order as { order_id: string }).order_id;
    expect((await v1(gateway.v1, `/v1/order/${orderId}`, trader, { method: "DELETE" })).status).toBe(200);
    expect((await order({ kind: "MARKET", quantity: "0.01" })).status).toBe(201);
    const rejected = await order({ kind: "MARKET", quantity: "5" });
    expect(rejected.body.violations).toEqual([expect.objectContaining({ rule: "exposure_cap" })]);
    expect((await v1(gateway.v1, `/v1/account/${accountId}`, trader)).status).toBe(200);
    expect((await v1(gateway.v1, "/v1/nowhere", trader)).status).toBe(404);
    // A second key spends its whole budget: one 429.
    const burst = await newKey(gateway.api, "metrics-burst");
    const statuses = await Promise.all(
      Array.from({ length: RATE_LIMIT + 1 }, () => v1(gateway.v1, "/v1/tickers", burst).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);

    // The shards report their tallies every ENGINE_STATS_INTERVAL_MS, so one report can hold the fill and the
    // next the rejection that followed it: wait for the last order's tally (and the fill) to arrive.
    const deadline = Date.now() + 30_000;
    for (;;) {
      pages.engine = await scrape(stack.engineAdmin);
      const rejectedSeen = total(pages.engine, "engine_orders_total", { kind: "MARKET", outcome: "rejected" }) >= 1;
      if (rejectedSeen && total(pages.engine, "engine_fills_total") >= 1) break;
      if (Date.now() > deadline) throw new Error(`no fill or rejection tallied within 30 s:\n${pages.engine}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    pages.gateway = await scrape(gateway.api);
    pages.wallet = await scrape(stack.walletAdmin[0] ?? "");
  });

  afterAll(async () => {
    market?.close();
    await stack?.stop();
  });

  it("exports every metric the dashboard and the alert rules read", () => {
    const exported = new Set(Object.values(pages).flatMap(exportedOrDeclared));
    const queries = [
      ...dashboardQueries().map(({ panel, expr }) => ({ where: `dashboard panel "${panel}"`, expr })),
      ...alertRules().map(({ alert, expr }) => ({ where: `alert ${alert}`, expr })),
    ];
    expect(queries.length).toBeGreaterThan(30);
    const missing = queries.flatMap(({ where, expr }) =>
      metricNamesIn(expr)
        .filter((name) => !exported.has(name))
        .map((name) => `${name} (${where})`),
    );
    expect(missing).toEqual([]);
    const referenced = new Set(queries.flatMap(({ expr }) => metricNamesIn(expr)));
    for (const family of WEBHOOK_METRICS) {
      expect(
        [...referenced].some((name) => name.startsWith(family)),
        family,
      ).toBe(true);
    }
  });

  it("counts the session: routes as templates, orders by kind and outcome, the 429, the fill", () => {
    const { gateway, engine, wallet } = pages;
    expect(total(gateway, "http_requests_total", { listener: "v1", method: "POST", route: "/v1/order" })).toBe(3);
    expect(
      total(gateway, "http_requests_total", {
        listener: "v1",
        method: "DELETE",
        route: "/v1/order/:order_id",
        status: "200",
      }),
    ).toBe(1);
    expect(
      total(gateway, "http_requests_total", { listener: "v1", method: "GET", route: "unmatched", status: "404" }),
    ).toBe(1);
    expect(total(gateway, "gateway_rate_limit_decisions_total", { decision: "limited" })).toBe(1);
    expect(total(gateway, "grpc_client_handling_seconds_count", { grpc_method: "PlaceOrder", grpc_code: "OK" })).toBe(
      3,
    );
    expect(total(engine, "grpc_server_handling_seconds_count", { grpc_method: "PlaceOrder", grpc_code: "OK" })).toBe(3);
    expect(total(engine, "engine_orders_total", { kind: "LIMIT", outcome: "canceled", rule: "none" })).toBe(1);
    expect(total(engine, "engine_orders_total", { kind: "MARKET", outcome: "filled", rule: "none" })).toBe(1);
    expect(total(engine, "engine_orders_total", { kind: "MARKET", outcome: "rejected", rule: "exposure_cap" })).toBe(1);
    expect(total(engine, "engine_accounts", { state: "ACTIVE" })).toBe(1);
    expect(total(engine, "engine_journal_commit_duration_seconds_count", { outcome: "ok" })).toBeGreaterThan(0);
    expect(total(wallet, "grpc_server_handling_seconds_count", { grpc_method: "CreateApiKey", grpc_code: "OK" })).toBe(
      2,
    );
  });

  it("never puts an account, order, key or user id in a label", () => {
    const text = Object.values(pages).join("\n");
    for (const id of [accountId, orderId, trader.id, "metrics-trader", "metrics-burst"]) {
      expect(id).not.toBe("");
      expect(text).not.toContain(id);
    }
  });

  it("passes promtool check metrics on every endpoint, process metrics included", () => {
    const results = Object.fromEntries(
      Object.entries(pages).map(([process, page]) => [process, promtool(["check", "metrics"], page)]),
    );
    expect(Object.values(pages).every((page) => page.includes("nodejs_active_handles_all"))).toBe(true);
    expect(results).toEqual({
      gateway: { status: 0, output: "" },
      wallet: { status: 0, output: "" },
      engine: { status: 0, output: "" },
    });
  });
});

describe("METRICS_ENABLED=false", () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await stackOn("pglite", { env: { METRICS_ENABLED: "false" } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("records no request-path metric; /metrics keeps the process metrics (and the webhook module's)", async () => {
    const gateway = stack.gateways[0];
    if (gateway === undefined) throw new Error("no gateway");
    const key = await newKey(gateway.api, "quiet");
    expect((await v1(gateway.v1, "/v1/tickers", key)).status).toBe(200);
    for (const url of [gateway.api, stack.walletAdmin[0] ?? "", stack.engineAdmin]) {
      const names = [...exportedNames(await scrape(url))];
      expect(names).toContain("process_cpu_seconds_total");
      // The dispatcher's metrics are off the request path: they stay (engine/webhooks/metrics.ts).
      expect(names.filter((name) => !/^(process|nodejs|webhook)_/.test(name))).toEqual([]);
    }
  });
});
