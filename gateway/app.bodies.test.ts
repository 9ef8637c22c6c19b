// Every route of both listeners that reads a JSON body, sent generated bodies: deep nesting (to 32,000 levels),
// wide arrays, long strings, lone surrogates and any Unicode, under the route's own field names. Each answer is
// a 2xx or a 4xx, never a 5xx (the backends behind are stubs: every key valid, every call answered not_found).
import http from "node:http";
import fc from "fast-check";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceError } from "../kernel/errors.js";
import { createLogger } from "../kernel/log.js";
import { buildApiApp, buildV1App, type AppOptions } from "./app.js";
import type { Clients } from "./clients.js";
import { MemoryRateLimiter } from "./ratelimit/index.js";
import { V1_ROUTES } from "./v1/router.js";

const ID = "0a0a0a0a-0000-4000-8000-000000000001";

/** A backend whose every method refuses with not_found. */
const refusing = (): unknown =>
  new Proxy(
    {},
    {
      get: (_target, name) => (name === "then" ? undefined : () => Promise.reject(new ServiceError("not_found"))),
    },
  );

const VALID = {
  valid: true,
  code: "",
  user_id: "u1",
  key_id: "11111111-1111-4111-8111-111111111111",
  permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
  expires_at_ms: 0,
  ip_whitelist: [],
};

function options(): AppOptions {
  const wallet = new Proxy(refusing() as object, {
    get: (target, name, receiver) =>
      name === "validateApiKey" ? () => Promise.resolve(VALID) : (Reflect.get(target, name, receiver) as unknown),
  });
  const clients = { wallet, engine: refusing(), close: () => undefined } as unknown as Clients;
  return {
    clients,
    auth: { clients, limiter: new MemoryRateLimiter({ limit: 1_000_000, windowMs: 60_000 }), windowMs: 60_000 },
    registry: new Registry(),
    metricsEnabled: false,
    log: createLogger("test", "silent"),
    trustedProxies: [],
    adminToken: undefined,
    bodyLimitBytes: 65_536,
    ready: () => Promise.resolve(true),
    onRevoked: () => Promise.resolve(),
  };
}

async function listening(app: http.RequestListener): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { server, base: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}` };
}

interface Route {
  method: string;
  url: string;
}

const FIELDS = [
  "account_id",
  "symbol",
  "side",
  "kind",
  "quantity",
  "limit_price",
  "trigger_price",
  "time_in_force",
  "client_id",
  "orders",
  "plan_id",
  "label",
  "timeout_ms",
  "permissions",
  "webhookUrl",
  "ipWhitelist",
  "expiresAt",
  "key",
  "secret",
  "ip",
  "permission",
];

const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)), maxLength: 20 }),
  fc.string({ minLength: 1_000, maxLength: 60_000 }),
  fc.constantFrom("BTC-USD", "BUY", "LIMIT", "0.01", "50000", ID, "READ_ONLY", "\ud800", "\u202e", "\u0000"),
);
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 6, stringUnit: "binary" }),
  fc.array(fc.integer(), { minLength: 1_000, maxLength: 15_000 }),
  fc.array(fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue({ maxDepth: 2 })), { maxLength: 60 }),
  text,
);
const nested = (levels: number, inner: string, objects: boolean): string =>
  (objects ? '{"orders":' : "[").repeat(levels) + inner + (objects ? "}" : "]").repeat(levels);
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), value).map((record) => JSON.stringify(record)),
  fc
    .tuple(fc.integer({ min: 0, max: 32_000 }), fc.boolean(), value)
    .map(([levels, objects, inner]) =>
      nested(objects ? Math.floor(levels / 6) : levels, JSON.stringify(inner), objects),
    ),
  value.map((v) => JSON.stringify(v)),
);

describe("every route that reads a JSON body", () => {
  const servers: http.Server[] = [];
  const routes: { base: string; route: Route }[] = [];

  beforeAll(async () => {
    const v1 = await listening(buildV1App(options()));
    const api = await listening(buildApiApp(options()));
    servers.push(v1.server, api.server);
    for (const route of V1_ROUTES) {
      if (route.body !== true && route.units === undefined) continue;
      const url = `/v1${route.path.replace(/:[a-z_]+/g, ID)}`;
      routes.push({ base: v1.base, route: { method: route.method.toUpperCase(), url } });
    }
    for (const [method, url] of [
      ["POST", "/api/api-keys"],
      ["POST", "/api/api-keys/validate"],
      ["DELETE", `/api/api-keys/${ID}`],
      ["POST", `/api/api-keys/${ID}/deliveries/${ID}/redeliver`],
    ] as const) {
      routes.push({ base: api.base, route: { method, url } });
    }
  });
  afterAll(() => {
    for (const server of servers) server.close();
  });

  it("covers both listeners", () => {
    expect(routes.filter((r) => r.route.url.startsWith("/v1/")).length).toBeGreaterThanOrEqual(9);
    expect(routes.filter((r) => r.route.url.startsWith("/api/")).length).toBe(4);
  });

  it("answers any body within the size limit with a 2xx or 4xx, never a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), body, async (pick, sent) => {
        const { base, route } = routes[pick % routes.length] ?? { base: "", route: { method: "", url: "" } };
        const response = await fetch(`${base}${route.url}`, {
          method: route.method,
          headers: {
            "content-type": "application/json",
            "x-api-key": "svc_ak_fuzz",
            "x-api-secret": "svc_sk_fuzz",
            "x-user-id": "u1",
          },
          body: sent,
        });
        const answer = await response.text();
        expect(
          response.status < 500,
          `${route.method} ${route.url}: ${String(response.status)} ${answer.slice(0, 200)} for a ${String(sent.length)}-character body`,
        ).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});

/** Sends GET `url` with a body that is not JSON although it says so (fetch sends no body with a GET). */
function getWithBrokenJson(base: string, url: string): Promise<number> {
  const sent = "{not json";
  return new Promise((resolve, reject) => {
    const request = http.request(`${base}${url}`, {
      method: "GET",
      headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(sent)) },
    });
    request.on("response", (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
    request.end(sent);
  });
}

describe("the routes without a body on the /api listener", () => {
  it.each(["/metrics", "/healthz", "/readyz"])("answer %s 200 whatever body comes with the GET", async (url) => {
    const api = await listening(buildApiApp(options()));
    try {
      expect(await getWithBrokenJson(api.base, url)).toBe(200);
    } finally {
      api.server.close();
    }
  });
});
