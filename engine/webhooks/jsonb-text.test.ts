import { PGlite } from "@electric-sql/pglite";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonbText } from "./jsonb-text.js";

describe("jsonbText", () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create();
  });
  afterAll(async () => {
    await db.close();
  });
  const printed = async (json: string): Promise<string> =>
    (await db.query<{ t: string }>("SELECT $1::jsonb::text AS t", [json])).rows[0]?.t ?? "";

  it("orders keys shortest first, then by bytes, with PostgreSQL's separators", async () => {
    const json = '{"price":1,"id":"x","fee":0.5,"b":[1,{"zz":true,"a":null}],"é":"ü"}';
    expect(jsonbText(json)).toBe('{"b": [1, {"a": null, "zz": true}], "id": "x", "é": "ü", "fee": 0.5, "price": 1}');
    expect(jsonbText(json)).toBe(await printed(json));
  });

  it("prints what PostgreSQL prints for random records of the outbox's kind", async () => {
    const key = fc.string({ minLength: 1, maxLength: 12 });
    const leaf = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.integer({ min: -1e9, max: 1e9 }),
      fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).map((n) => Number(n.toFixed(6))),
      fc.boolean(),
      fc.constant(null),
    );
    const value = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(key, tie("node"), { maxKeys: 6 }),
      ),
    })).node;
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, value, { maxKeys: 8 }), async (record) => {
        const json = JSON.stringify(record);
        expect(jsonbText(json)).toBe(await printed(json));
      }),
      { numRuns: 200 },
    );
  });
});
