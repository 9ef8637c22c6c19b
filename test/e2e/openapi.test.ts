// Holds the running gateway to docs/openapi.yaml (CONTRACT, first lines): every documented operation is driven
// through every response it documents that a test can provoke, each real body is validated against the
// documented JSON Schema (Ajv, draft 2020-12 as OpenAPI 3.1 uses it) and each documented header is checked.
// In the other direction, the document's operations must equal the routes the gateway serves (listed below
// from gateway/app.ts, gateway/api/router.ts and gateway/v1/router.ts), and other paths must be 404.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackOn, type TestStack } from "../harness/backends.js";
import { flipLast, type CreatedKey } from "../harness/client.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const DOC_ID = "https://funded-trading.invalid/openapi.yaml";

type Listener = "api" | "v1";
type Method = "GET" | "POST" | "DELETE" | "PUT" | "PATCH";

/** What the gateway serves, per listener: keep in step with the routers named at the top of this file. */
const SERVED = [
  "api GET /healthz",
  "api GET /readyz",
  "api GET /metrics",
  "api GET /api/api-keys",
  "api POST /api/api-keys",
  "api DELETE /api/api-keys/{id}",
  "api POST /api/api-keys/validate",
  "v1 GET /healthz",
  "v1 GET /readyz",
  "v1 GET /v1/tickers",
  "v1 GET /v1/plans",
];

/** Documented responses no black-box test can provoke: an internal fault, a dependency down. */
const UNREACHABLE_STATUSES = new Set(["500", "503"]);

/** Headers that only some responses carry; a response must carry them exactly when documented. */
const CONDITIONAL_HEADERS = ["RateLimit-Policy", "RateLimit", "Retry-After"];

interface ServerObject {
  url: string;
  variables?: Record<string, { default: string }>;
}
interface Referable {
  $ref?: string;
}
interface HeaderObject extends Referable {
  required?: boolean;
}
interface ResponseObject extends Referable {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, unknown>;
}
interface OperationObject {
  operationId: string;
  responses: Record<string, ResponseObject>;
}
type PathItem = Partial<Record<Lowercase<Method>, OperationObject>> & { servers?: ServerObject[] };
interface OpenApiDocument {
  openapi: string;
  servers: ServerObject[];
  paths: Record<string, PathItem>;
}

const METHODS: Method[] = ["GET", "POST", "DELETE", "PUT", "PATCH"];

const doc = parse(readFileSync(path.join(ROOT, "docs", "openapi.yaml"), "utf8")) as OpenApiDocument;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

// ajv-formats is not installed: the two formats the document uses are defined here.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
ajv.addFormat("uuid", UUID);
ajv.addFormat("date-time", { type: "string", validate: (s: string) => DATE_TIME.test(s) && !isNaN(Date.parse(s)) });
// The whole document is one schema resource, so `#/components/...` references resolve inside it. Ajv compiles
// that root too: its fields (openapi, info, paths, ...) are declared as annotation-only keywords, so strict mode
// still refuses unknown keywords inside the schemas themselves (OpenAPI 3.0's `example`, typos).
ajv.addVocabulary(Object.keys(doc));
ajv.addSchema(doc, DOC_ID);

const unescapeSegment = (s: string): string => s.replace(/~1/g, "/").replace(/~0/g, "~");
const escapeSegment = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** The node at a JSON pointer (`/a/b~1c`) of the document. */
function at(pointer: string): unknown {
  let node: unknown = doc;
  for (const segment of pointer.split("/").slice(1).map(unescapeSegment)) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** Follows document-local `$ref`s, returning the target and its pointer. */
function resolve<T extends Referable>(value: T, pointer: string): { value: T; pointer: string } {
  let current = value;
  let where = pointer;
  while (current.$ref !== undefined) {
    expect(current.$ref, `${where}: only document-local references`).toMatch(/^#\//);
    where = current.$ref.slice(1);
    current = at(where) as T;
    expect(current, `${where} exists`).toBeDefined();
  }
  return { value: current, pointer: where };
}

const validators = new Map<string, ValidateFunction>();
function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (validate === undefined) {
    const fragment = pointer
      .split("/")
      .map((segment) => encodeURIComponent(segment))
      .join("/");
    validate = ajv.getSchema(`${DOC_ID}#${fragment}`);
    if (validate === undefined) throw new Error(`no schema at ${pointer}`);
    validators.set(pointer, validate);
  }
  return validate;
}

function expectValid(pointer: string, value: unknown, what: string): void {
  const validate = validatorAt(pointer);
  const ok = validate(value);
  expect(ok, `${what} against ${pointer}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`).toBe(true);
}

function listenerOf(server: ServerObject): Listener {
  const port = server.variables?.port?.default;
  if (port === "8081") return "api";
  if (port === "8080") return "v1";
  throw new Error(`unknown server ${JSON.stringify(server)}`);
}

function documentedOperations(): string[] {
  const operations: string[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      if (item[lowercase(method)] === undefined) continue;
      for (const server of item.servers ?? doc.servers) operations.push(`${listenerOf(server)} ${method} ${template}`);
    }
  }
  return operations.sort();
}

const lowercase = (method: Method): Lowercase<Method> => method.toLowerCase() as Lowercase<Method>;

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** Body helpers: the field of a JSON object reply (tests read values the schema already vouched for). */
function field(reply: Reply, name: string): unknown {
  return typeof reply.json === "object" && reply.json !== null
    ? (reply.json as Record<string, unknown>)[name]
    : undefined;
}

interface Endpoints {
  api: string;
  v1: string;
}

interface Send {
  params?: Record<string, string>;
  headers?: Record<string, string>;
  /** Sent as JSON with Content-Type: application/json. */
  json?: unknown;
  /** Sent as is (set the headers yourself). */
  raw?: string;
}

async function fetchReply(url: string, method: Method, init: Send): Promise<Reply> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.raw;
  if (init.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(init.json);
  }
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  const isJson = (response.headers.get("content-type") ?? "").startsWith("application/json");
  return { status: response.status, headers: response.headers, text, json: isJson ? JSON.parse(text) : undefined };
}

/** Every (listener, operation, status) a test has held to the document. */
const exercised = new Set<string>();

/**
 * Sends a request to a documented operation and holds the reply to the document: the operation is served on
 * this listener, the status is documented, the body matches that response's schema, and the documented
 * headers (and only those of the conditional ones) are present with valid values.
 */
async function send(
  endpoints: Endpoints,
  listener: Listener,
  method: Method,
  template: string,
  init: Send = {},
): Promise<Reply> {
  const item = doc.paths[template];
  if (item === undefined) throw new Error(`${template} is not documented`);
  const operation = item[lowercase(method)];
  if (operation === undefined) throw new Error(`${method} ${template} is not documented`);
  expect((item.servers ?? doc.servers).map(listenerOf), `${template} is documented on ${listener}`).toContain(listener);

  let target = template;
  for (const [name, value] of Object.entries(init.params ?? {})) target = target.replace(`{${name}}`, value);
  const reply = await fetchReply(`${endpoints[listener]}${target}`, method, init);

  const label = `${listener} ${method} ${template} → ${reply.status}`;
  const documented = operation.responses[String(reply.status)];
  expect(documented, `${label} is documented (body ${reply.text.slice(0, 300)})`).toBeDefined();
  if (documented === undefined) return reply;
  const opPointer = `/paths/${escapeSegment(template)}/${lowercase(method)}`;
  const response = resolve(documented, `${opPointer}/responses/${reply.status}`);
  checkResponse(response.value, response.pointer, reply, label);
  exercised.add(`${listener} ${method} ${template} ${reply.status}`);
  return reply;
}

/** Holds a reply to one (already resolved) Response Object of the document. */
function checkResponse(response: ResponseObject, pointer: string, reply: Reply, label: string): void {
  const mediaTypes = Object.keys(response.content ?? {});
  const contentType = (reply.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
  expect(mediaTypes, `${label}: content type`).toContain(contentType);
  const schemaPointer = `${pointer}/content/${escapeSegment(contentType)}/schema`;
  expectValid(schemaPointer, contentType === "application/json" ? reply.json : reply.text, `${label} body`);

  const headers = response.headers ?? {};
  for (const [name, header] of Object.entries(headers)) {
    const resolved = resolve(header, `${pointer}/headers/${escapeSegment(name)}`);
    const value = reply.headers.get(name);
    if (resolved.value.required === true) expect(value, `${label}: header ${name}`).not.toBeNull();
    if (value !== null) expectValid(`${resolved.pointer}/schema`, value, `${label}: header ${name}`);
  }
  for (const name of CONDITIONAL_HEADERS) {
    if (!(name in headers)) expect(reply.headers.get(name), `${label}: undocumented header ${name}`).toBeNull();
  }
}

const apiKeyHeaders = (key: Pick<CreatedKey, "key" | "secret">): Record<string, string> => ({
  "x-api-key": key.key,
  "x-api-secret": key.secret,
});

describe("docs/openapi.yaml against the running gateway", () => {
  let stack: TestStack | undefined;
  // A second gateway with the admin token set and a budget of 3 requests a minute, to reach 401 and 429.
  let strict: TestStack | undefined;
  let main: Endpoints;
  let guarded: Endpoints;
  const adminToken = "openapi-admin-token-0123456789";
  const bearer = { authorization: `Bearer ${adminToken}` };

  const user = (id: string): Record<string, string> => ({ "x-user-id": id });

  async function created(
    endpoints: Endpoints,
    userId: string,
    body: Record<string, unknown>,
    extra: Record<string, string> = {},
  ) {
    const reply = await send(endpoints, "api", "POST", "/api/api-keys", {
      headers: { ...user(userId), ...extra },
      json: body,
    });
    expect(reply.status).toBe(201);
    const apiKey = field(reply, "apiKey") as { id: string };
    return { id: apiKey.id, key: String(field(reply, "key")), secret: String(field(reply, "secret")) };
  }

  beforeAll(async () => {
    const [first, second] = await Promise.allSettled([
      stackOn("pglite"),
      stackOn("pglite", {
        gatewayEnv: { RATE_LIMIT_MAX: "3", RATE_LIMIT_WINDOW_MS: "60000", WALLET_ADMIN_TOKEN: adminToken },
      }),
    ]);
    if (first.status === "rejected" || second.status === "rejected") {
      await Promise.all([first, second].flatMap((s) => (s.status === "fulfilled" ? [s.value.stop()] : [])));
      throw first.status === "rejected" ? first.reason : (second as PromiseRejectedResult).reason;
    }
    stack = first.value;
    strict = second.value;
    main = stack.gateways[0] ?? { api: "", v1: "" };
    guarded = strict.gateways[0] ?? { api: "", v1: "" };
  });
  afterAll(async () => {
    await Promise.all([stack?.stop(), strict?.stop()]);
  });

  it("is an OpenAPI 3.1 document whose operations are exactly the routes the gateway serves", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(documentedOperations()).toEqual([...SERVED].sort());
    const ids = Object.values(doc.paths).flatMap((item) =>
      METHODS.map((m) => item[lowercase(m)]?.operationId).filter((id) => id !== undefined),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("writes nullable fields the OpenAPI 3.1 way, as a type that includes null", () => {
    // Ajv still knows OpenAPI 3.0's `nullable`, so strict mode would not catch it: look for it here.
    const found: string[] = [];
    const walk = (node: unknown, pointer: string): void => {
      if (typeof node !== "object" || node === null) return;
      for (const [name, child] of Object.entries(node)) {
        if (name === "nullable") found.push(pointer);
        walk(child, `${pointer}/${escapeSegment(name)}`);
      }
    };
    walk(doc, "");
    expect(found).toEqual([]);
    const nullable = (pointer: string): boolean => validatorAt(pointer)(null);
    expect(nullable("/components/schemas/ApiKeyFields/properties/webhookUrl")).toBe(true);
    expect(nullable("/components/schemas/ApiKeyFields/properties/expiresAt")).toBe(true);
    expect(nullable("/components/schemas/ApiKey/properties/lastUsedAt")).toBe(true);
    expect(nullable("/components/schemas/Ticker/properties/mark_price")).toBe(true);
    expect(nullable("/components/schemas/Ticker/properties/index_price")).toBe(true);
    expect(nullable("/components/schemas/ApiKeyFields/properties/createdAt")).toBe(false);
  });

  it("compiles every schema the document gives a response, a header or a request body", () => {
    let count = 0;
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const operation = item[lowercase(method)];
        if (operation === undefined) continue;
        const opPointer = `/paths/${escapeSegment(template)}/${lowercase(method)}`;
        if (at(`${opPointer}/requestBody`) !== undefined) {
          validatorAt(`${opPointer}/requestBody/content/application~1json/schema`);
          count++;
        }
        for (const [status, documented] of Object.entries(operation.responses)) {
          const response = resolve(documented, `${opPointer}/responses/${status}`);
          for (const mediaType of Object.keys(response.value.content ?? {})) {
            validatorAt(`${response.pointer}/content/${escapeSegment(mediaType)}/schema`);
            count++;
          }
          for (const [name, header] of Object.entries(response.value.headers ?? {})) {
            validatorAt(`${resolve(header, `${response.pointer}/headers/${escapeSegment(name)}`).pointer}/schema`);
            count++;
          }
        }
      }
    }
    expect(count).toBeGreaterThan(40);
  });

  it("documents request bodies that accept the README's examples and refuse unknown fields", () => {
    const create = "/paths/~1api~1api-keys/post/requestBody/content/application~1json/schema";
    expect(validatorAt(create)({ label: "momentum bot", permissions: ["READ_ONLY", "TRADE"] })).toBe(true);
    expect(validatorAt(create)({ label: "x", permissions: ["READ_ONLY"], admin: true })).toBe(false);
    expect(validatorAt(create)({ label: "x", permissions: ["ADMIN"] })).toBe(false);
    const validate = "/paths/~1api~1api-keys~1validate/post/requestBody/content/application~1json/schema";
    expect(validatorAt(validate)({ key: "k", secret: "s", ip: "127.0.0.1", permission: "TRADE" })).toBe(true);
    expect(validatorAt(validate)({ key: "k", secret: "s" })).toBe(false);
  });

  it("creates keys with 201, showing webhookSecret only when a webhookUrl was given", async () => {
    const plain = await send(main, "api", "POST", "/api/api-keys", {
      headers: user("alice"),
      json: {
        label: "momentum bot",
        permissions: ["READ_ONLY", "TRADE"],
        ipWhitelist: ["127.0.0.1", "2001:db8::/32"],
        expiresAt: "2099-01-01T00:00:00Z",
      },
    });
    expect(plain.status).toBe(201);
    expect(field(plain, "webhookSecret")).toBeUndefined();
    const hooked = await send(main, "api", "POST", "/api/api-keys", {
      headers: user("alice"),
      json: { label: "hooks", permissions: ["MANAGE_ORDERS"], webhookUrl: "https://hooks.example.com/fts" },
    });
    expect(hooked.status).toBe(201);
    expect(field(hooked, "webhookSecret")).toMatch(/^whsec_/);
  });

  it("lists the caller's active keys with 200, lastUsedAt filled once a key was used", async () => {
    const empty = await send(main, "api", "GET", "/api/api-keys", { headers: user("nobody-yet") });
    expect(empty.status).toBe(200);
    expect(field(empty, "apiKeys")).toEqual([]);
    const key = await created(main, "bruno", { label: "reader", permissions: ["READ_ONLY"] });
    await created(main, "bruno", { label: "hooks", permissions: ["TRADE"], webhookUrl: "https://h.example.com/x" });
    expect((await send(main, "v1", "GET", "/v1/tickers", { headers: apiKeyHeaders(key) })).status).toBe(200);
    const listed = await send(main, "api", "GET", "/api/api-keys", { headers: user("bruno") });
    expect(listed.status).toBe(200);
    const keys = field(listed, "apiKeys") as { id: string; lastUsedAt: string | null }[];
    expect(keys).toHaveLength(2);
    expect(keys.find((k) => k.id === key.id)?.lastUsedAt).toEqual(expect.any(String));
  });

  it("refuses a bad key request with 400 invalid_payload and a body over 64 KiB with 413", async () => {
    const post = (init: Send) =>
      send(main, "api", "POST", "/api/api-keys", { ...init, headers: { ...user("carla"), ...init.headers } });
    const badScope = await post({ json: { label: "x", permissions: ["READ_ONLY", "ADMIN"] } });
    expect(badScope.status).toBe(400);
    expect(field(badScope, "issues")).toEqual([
      { path: "permissions.1", message: "unknown scope: use READ_ONLY, TRADE or MANAGE_ORDERS" },
    ]);
    const unknown = await post({ json: { label: "x", permissions: ["READ_ONLY"], admin: true } });
    expect(unknown.status).toBe(400);
    expect(field(unknown, "issues")).toEqual([{ path: "admin", message: "unknown field" }]);
    const notJson = await post({ headers: { "content-type": "application/json" }, raw: "{label:" });
    expect(notJson.status).toBe(400);
    const past = await post({ json: { label: "x", permissions: ["TRADE"], expiresAt: "2020-01-01T00:00:00Z" } });
    expect(past.status).toBe(400);
    const huge = await post({ json: { label: "x".repeat(70_000), permissions: ["READ_ONLY"] } });
    expect(huge.status).toBe(413);
    expect(field(huge, "error")).toBe("invalid_payload");
  });

  it("answers 401 unauthorized on every key route without X-User-Id", async () => {
    const list = await send(main, "api", "GET", "/api/api-keys");
    const create = await send(main, "api", "POST", "/api/api-keys", { json: { label: "x", permissions: ["TRADE"] } });
    const revoke = await send(main, "api", "DELETE", "/api/api-keys/{id}", {
      params: { id: "00000000-0000-4000-8000-000000000000" },
    });
    for (const reply of [list, create, revoke]) expect(reply.status).toBe(401);
  });

  it("answers 409 key_limit_reached with the limit for an 11th active key", async () => {
    for (let i = 0; i < 10; i++) await created(main, "dora", { label: `bot ${i}`, permissions: ["READ_ONLY"] });
    const eleventh = await send(main, "api", "POST", "/api/api-keys", {
      headers: user("dora"),
      json: { label: "one too many", permissions: ["READ_ONLY"] },
    });
    expect(eleventh.status).toBe(409);
    expect(eleventh.json).toEqual({ error: "key_limit_reached", limit: 10 });
  });

  it("revokes with 200 and answers 404 for an unknown id, another user's key and a revoked key", async () => {
    const key = await created(main, "emil", { label: "short-lived", permissions: ["TRADE"] });
    const revoke = (userId: string, id: string) =>
      send(main, "api", "DELETE", "/api/api-keys/{id}", { headers: user(userId), params: { id } });
    expect((await revoke("mallory", key.id)).status).toBe(404);
    const revoked = await revoke("emil", key.id);
    expect(revoked.status).toBe(200);
    expect(field(revoked, "id")).toBe(key.id);
    expect((await revoke("emil", key.id)).status).toBe(404);
    expect((await revoke("emil", "not-a-uuid")).status).toBe(404);
    const after = await send(main, "v1", "GET", "/v1/tickers", { headers: apiKeyHeaders(key) });
    expect(after.status).toBe(401);
  });

  it("validates a key with 200 and answers 400, 401, both 403 bodies and 413", async () => {
    const key = await created(main, "fern", { label: "v", permissions: ["READ_ONLY"], ipWhitelist: ["127.0.0.1"] });
    const validate = (json: unknown) => send(main, "api", "POST", "/api/api-keys/validate", { json });
    const ok = await validate({ key: key.key, secret: key.secret, ip: "::ffff:127.0.0.1", permission: "READ_ONLY" });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ valid: true, userId: "fern", keyId: key.id, permissions: ["READ_ONLY"] });
    const unknownScope = await validate({ key: key.key, secret: key.secret, ip: "127.0.0.1", permission: "ADMIN" });
    expect(unknownScope.status).toBe(400);
    const missing = await validate({ key: key.key });
    expect(missing.status).toBe(400);
    expect((field(missing, "issues") as { path: string }[]).map((i) => i.path).sort()).toEqual(["ip", "secret"]);
    const wrongSecret = await validate({ key: key.key, secret: flipLast(key.secret), ip: "127.0.0.1" });
    expect(wrongSecret.status).toBe(401);
    const wrongIp = await validate({ key: key.key, secret: key.secret, ip: "127.0.0.2" });
    expect(wrongIp.status).toBe(403);
    expect(wrongIp.json).toEqual({ error: "IP not whitelisted for this API key" });
    const scope = await validate({ key: key.key, secret: key.secret, ip: "127.0.0.1", permission: "TRADE" });
    expect(scope.status).toBe(403);
    expect(scope.json).toEqual({ error: "permission_denied" });
    const huge = await validate({ key: key.key, secret: "s".repeat(70_000), ip: "127.0.0.1" });
    expect(huge.status).toBe(413);
  });

  it("serves tickers and plans with 200 and the RateLimit headers", async () => {
    const key = await created(main, "gus", { label: "reader", permissions: ["READ_ONLY"] });
    const tickers = await send(main, "v1", "GET", "/v1/tickers", { headers: apiKeyHeaders(key) });
    expect(tickers.status).toBe(200);
    const rows = field(tickers, "data") as { asset_class: string; venues: string[] }[];
    expect(new Set(rows.map((r) => r.asset_class))).toEqual(new Set(["crypto", "forex", "commodities", "indices"]));
    const plans = await send(main, "v1", "GET", "/v1/plans", { headers: apiKeyHeaders(key) });
    expect(plans.status).toBe(200);
    expect(plans.headers.get("ratelimit-policy")).toBe("1200;w=60");
    expect(plans.headers.get("ratelimit")).toMatch(/^limit=1200, remaining=1198, reset=\d+$/);
  });

  it("answers 401 on /v1 without credentials or with a wrong secret, and counts nothing", async () => {
    const key = await created(main, "hana", { label: "reader", permissions: ["READ_ONLY"] });
    for (const template of ["/v1/tickers", "/v1/plans"]) {
      const none = await send(main, "v1", "GET", template);
      expect(none.status).toBe(401);
      const onlyKey = await send(main, "v1", "GET", template, { headers: { "x-api-key": key.key } });
      expect(onlyKey.status).toBe(401);
      const wrong = await send(main, "v1", "GET", template, {
        headers: apiKeyHeaders({ key: key.key, secret: flipLast(key.secret) }),
      });
      expect(wrong.status).toBe(401);
    }
    const first = await send(main, "v1", "GET", "/v1/plans", { headers: apiKeyHeaders(key) });
    expect(first.headers.get("ratelimit")).toMatch(/remaining=1199,/);
  });

  it("answers 403 with the RateLimit headers to a key called from outside its IP whitelist", async () => {
    const key = await created(main, "ines", { label: "fenced", permissions: ["TRADE"], ipWhitelist: ["203.0.113.7"] });
    for (const template of ["/v1/tickers", "/v1/plans"]) {
      const reply = await send(main, "v1", "GET", template, { headers: apiKeyHeaders(key) });
      expect(reply.status).toBe(403);
      expect(reply.json).toEqual({ error: "IP not whitelisted for this API key" });
    }
  });

  it("answers 429 with Retry-After and retry_after_ms once a key's budget is spent", async () => {
    const key = await created(guarded, "jon", { label: "eager", permissions: ["READ_ONLY"] }, bearer);
    for (let i = 0; i < 3; i++) {
      const reply = await send(guarded, "v1", "GET", "/v1/plans", { headers: apiKeyHeaders(key) });
      expect(reply.status).toBe(200);
      expect(reply.headers.get("ratelimit-policy")).toBe("3;w=60");
    }
    for (const template of ["/v1/tickers", "/v1/plans"]) {
      const reply = await send(guarded, "v1", "GET", template, { headers: apiKeyHeaders(key) });
      expect(reply.status).toBe(429);
      const retryMs = Number(field(reply, "retry_after_ms"));
      expect(Number(reply.headers.get("retry-after"))).toBe(Math.max(1, Math.ceil(retryMs / 1000)));
      expect(reply.headers.get("ratelimit")).toMatch(/^limit=3, remaining=0, reset=\d+$/);
    }
  });

  it("answers 401 on every /api route without the admin bearer token when WALLET_ADMIN_TOKEN is set", async () => {
    const key = await created(guarded, "kai", { label: "admin", permissions: ["READ_ONLY"] }, bearer);
    const variants: Record<string, string>[] = [{}, { authorization: "Bearer wrong" }];
    for (const auth of variants) {
      const headers = { ...user("kai"), ...auth };
      const replies = [
        await send(guarded, "api", "GET", "/api/api-keys", { headers }),
        await send(guarded, "api", "POST", "/api/api-keys", { headers, json: { label: "x", permissions: ["TRADE"] } }),
        await send(guarded, "api", "DELETE", "/api/api-keys/{id}", { headers, params: { id: key.id } }),
        await send(guarded, "api", "POST", "/api/api-keys/validate", {
          headers: auth,
          json: { key: key.key, secret: key.secret, ip: "127.0.0.1" },
        }),
      ];
      for (const reply of replies) expect(reply.status).toBe(401);
    }
    const listed = await send(guarded, "api", "GET", "/api/api-keys", { headers: { ...user("kai"), ...bearer } });
    expect(listed.status).toBe(200);
    const validated = await send(guarded, "api", "POST", "/api/api-keys/validate", {
      headers: bearer,
      json: { key: key.key, secret: key.secret, ip: "127.0.0.1" },
    });
    expect(validated.status).toBe(200);
  });

  it("serves /healthz and /readyz on both listeners and /metrics on the wallet listener, without auth", async () => {
    for (const endpoints of [main, guarded]) {
      for (const listener of ["api", "v1"] as const) {
        expect((await send(endpoints, listener, "GET", "/healthz")).json).toEqual({ status: "ok" });
        expect((await send(endpoints, listener, "GET", "/readyz")).json).toEqual({ status: "ready" });
      }
      const metrics = await send(endpoints, "api", "GET", "/metrics");
      expect(metrics.status).toBe(200);
      expect(metrics.text).toContain("http_requests_total");
    }
  });

  it("echoes the caller's X-Request-Id and replaces an unusable one with a UUID", async () => {
    const echoed = await send(main, "api", "GET", "/api/api-keys", {
      headers: { ...user("lia"), "x-request-id": "trader-req-42" },
    });
    expect(echoed.headers.get("x-request-id")).toBe("trader-req-42");
    const replaced = await send(main, "v1", "GET", "/healthz", { headers: { "x-request-id": "has space" } });
    expect(replaced.headers.get("x-request-id")).toMatch(UUID);
  });

  it("answers 404 not_found on paths the document does not list, under /v1 only after authentication", async () => {
    const key = await created(main, "milo", { label: "prober", permissions: ["MANAGE_ORDERS"] });
    const probes: [Listener, Method, string, Record<string, string>][] = [
      ["v1", "GET", "/v1/account", apiKeyHeaders(key)],
      ["v1", "POST", "/v1/order", apiKeyHeaders(key)],
      ["v1", "DELETE", "/v1/tickers", apiKeyHeaders(key)],
      ["v1", "GET", "/metrics", {}],
      ["v1", "GET", "/api/api-keys", user("milo")],
      ["api", "GET", "/v1/tickers", apiKeyHeaders(key)],
      ["api", "GET", "/api/api-keys/some-id/deliveries", user("milo")],
      ["api", "PUT", "/api/api-keys", user("milo")],
    ];
    for (const [listener, method, target, headers] of probes) {
      const reply = await fetchReply(`${main[listener]}${target}`, method, { headers });
      const label = `${listener} ${method} ${target}`;
      expect(reply.status, label).toBe(404);
      expect(reply.json, label).toEqual({ error: "not_found" });
      expectValid("/components/schemas/NotFound", reply.json, label);
      expect(reply.headers.get("x-request-id"), label).not.toBeNull();
      // Under /v1 the key was authenticated and counted first, as for a 403.
      if (listener === "v1" && target.startsWith("/v1/")) {
        expect(reply.headers.get("ratelimit"), label).toMatch(/^limit=1200, /);
      }
    }
    const anonymous = await fetchReply(`${main.v1}/v1/account`, "GET", {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toEqual({ error: "unauthorized" });
  });

  it("has exercised every documented response except an internal fault (500) and a dependency down (503)", () => {
    const documented: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const operation = item[lowercase(method)];
        if (operation === undefined) continue;
        for (const server of item.servers ?? doc.servers) {
          for (const status of Object.keys(operation.responses)) {
            if (!UNREACHABLE_STATUSES.has(status)) {
              documented.push(`${listenerOf(server)} ${method} ${template} ${status}`);
            }
          }
        }
      }
    }
    expect([...exercised].sort()).toEqual(documented.sort());
  });
});
