// bodyOf (gateway/http/body.ts): the JSON body, refused when absent or when a string in it holds an unpaired
// surrogate (the gRPC encoding behind the gateway would store U+FFFD instead), with the path of that string.
// jsonBody: any body within the size limit is read or refused with a 4xx, however deep it nests.
import type http from "node:http";
import express, { type Request } from "express";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ServiceError } from "../../kernel/errors.js";
import { createLogger } from "../../kernel/log.js";
import { SURROGATE_MESSAGE } from "../../kernel/text.js";
import { bodyOf, deeperThan, jsonBody, MAX_BODY_DEPTH, TOO_DEEP_MESSAGE } from "./body.js";
import { errorResponder } from "./errors.js";
import { requestId } from "./request.js";
import { parse } from "./validation.js";
import { serveLocal } from "../../test/harness/serve.js";

const requestWith = (body: unknown): Request => ({ body }) as unknown as Request;

function issuesOf(body: unknown): unknown {
  try {
    bodyOf(requestWith(body));
    return "accepted";
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return error.fields.issues;
  }
}

describe("bodyOf", () => {
  it("refuses a request without a JSON body", () => {
    expect(issuesOf(undefined)).toEqual([
      { path: "", message: "expected a JSON object body (Content-Type: application/json)" },
    ]);
  });

  it.each<[string, unknown, string]>([
    ["a label", { label: "a\ud800b", permissions: ["READ_ONLY"] }, "label"],
    ["a nested value", { orders: [{ symbol: "BTC-USD" }, { client_id: "x\udc00" }] }, "orders.1.client_id"],
    ["a key", { ["k\ud83d"]: 1 }, "k\ud83d"],
    ["a top-level string", "\ud800", ""],
  ])("refuses %s holding an unpaired surrogate, naming where", (_what, body, path) => {
    expect(issuesOf(body)).toEqual([{ path, message: SURROGATE_MESSAGE }]);
  });

  it("accepts text in any script, emoji (surrogate pairs) included", () => {
    const body = {
      label: "bot \u673a\u5668\u4eba \ud83d\ude80",
      tags: ["\u05e9\u05dc\u05d5\u05dd"],
      n: 1,
      ok: true,
      none: null,
    };
    expect(bodyOf(requestWith(body))).toBe(body);
  });
});

/** `levels` arrays and objects, one inside the other, around `inner`. */
function nested(levels: number, inner: string, objects = false): string {
  const [open, close] = objects ? ['{"a":', "}"] : ["[", "]"];
  return open.repeat(levels) + inner + close.repeat(levels);
}

describe("deeperThan", () => {
  it("counts levels of arrays and objects, not scalars or width", () => {
    expect(deeperThan(JSON.parse(nested(64, "1")), 64)).toBe(false);
    expect(deeperThan(JSON.parse(nested(65, "1")), 64)).toBe(true);
    expect(deeperThan(JSON.parse(nested(64, "{}", true)), 64)).toBe(true);
    expect(deeperThan(JSON.parse(nested(63, "{}", true)), 64)).toBe(false);
    expect(
      deeperThan(
        Array.from({ length: 10_000 }, () => [[1]]),
        64,
      ),
    ).toBe(false);
    expect(deeperThan("text", 0)).toBe(false);
    expect(deeperThan({}, 0)).toBe(true);
  });

  it("walks 100,000 levels without overflowing the stack", () => {
    expect(deeperThan(JSON.parse(nested(100_000, "")), MAX_BODY_DEPTH)).toBe(true);
  });
});

describe("bodyOf on deep bodies", () => {
  it("refuses a body nested 30,000 deep as too deep instead of overflowing the stack", () => {
    expect(issuesOf(JSON.parse(nested(30_000, "")))).toEqual([{ path: "", message: TOO_DEEP_MESSAGE }]);
    expect(issuesOf(JSON.parse(nested(30_000, "1", true)))).toEqual([{ path: "", message: TOO_DEEP_MESSAGE }]);
  });

  it("accepts a body nested exactly as deep as the limit", () => {
    expect(issuesOf(JSON.parse(nested(MAX_BODY_DEPTH, '"x"')))).toBe("accepted");
  });
});

describe("jsonBody", () => {
  const LIMIT = 65_536;
  // A schema of the kind the routes use, with a field zod walks recursively (z.json()).
  const Body = z.strictObject({ label: z.string().max(64), data: z.json().optional() });
  let server: http.Server;
  let base = "";

  beforeAll(async () => {
    const app = express();
    app.use(requestId());
    app.use(jsonBody(LIMIT));
    app.post("/", (req, res) => {
      res.json(parse(Body, bodyOf(req)));
    });
    app.delete("/", (req, res) => {
      // A route that reads the body without bodyOf (as cancel-all does) gets the same bound.
      res.json({ depthOk: !deeperThan(req.body as unknown, MAX_BODY_DEPTH) });
    });
    app.use(errorResponder(createLogger("test", "silent")));
    ({ server, base } = await serveLocal(app));
  });
  afterAll(() => {
    server.close();
  });

  const send = async (body: string, method = "POST"): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${base}/`, { method, headers: { "content-type": "application/json" }, body });
    return { status: response.status, body: await response.json() };
  };
  const tooDeep = {
    status: 400,
    body: { error: "invalid_payload", issues: [{ path: "", message: TOO_DEEP_MESSAGE }] },
  };

  it("refuses a body nested 30,000 deep with 400 before any handler reads it", async () => {
    for (const method of ["POST", "DELETE"]) {
      expect(await send(nested(30_000, ""), method)).toEqual(tooDeep);
      expect(await send(`{"label":"x","data":${nested(30_000, "")}}`, method)).toEqual(tooDeep);
      expect(await send(nested(10_000, "1", true), method)).toEqual(tooDeep);
    }
  });

  it("reads a body nested as deep as the limit", async () => {
    const data = nested(MAX_BODY_DEPTH - 1, "1");
    expect(await send(`{"label":"x","data":${data}}`)).toEqual({
      status: 200,
      body: { label: "x", data: JSON.parse(data) as unknown },
    });
  });

  it("answers any body within the size limit with 2xx or 4xx, whatever its depth, width, strings or Unicode", async () => {
    const text = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)), maxLength: 20 }),
      fc.string({ minLength: 1_000, maxLength: 60_000 }),
    );
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 6, stringUnit: "binary" }),
      fc.array(fc.integer(), { minLength: 1_000, maxLength: 15_000 }),
      text,
    );
    const body = fc.oneof(
      fc.record({ label: text, data: value }, { requiredKeys: [] }).map((record) => JSON.stringify(record)),
      fc
        .tuple(fc.integer({ min: 0, max: 32_000 }), fc.boolean(), value)
        .map(([levels, objects, inner]) => nested(levels, JSON.stringify(inner), objects)),
      value.map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom("POST", "DELETE"), async (sent, method) => {
        const { status } = await send(sent, method);
        expect(status < 500, `${String(status)} for a ${String(sent.length)}-character body`).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
