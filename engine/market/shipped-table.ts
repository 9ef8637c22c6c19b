// A table shipped as data (the ticker catalogue, the challenge plans): validated once at start against its row
// schema, every problem listed in one Error, its rows frozen, and each row found by a key no two rows share.
import { z } from "zod";

export interface ShippedTable<T> {
  /** Every row, in the table's order. */
  readonly rows: readonly T[];
  /** The row whose key is exactly `key` (already normalised: a symbol such as `BTC-USD`, a plan id). */
  readonly byKey: (key: string) => T | undefined;
}

/**
 * Parses `raw` as a non-empty list of `row`s whose `key` is unique (a repeat is refused at its row as
 * `duplicate <key> <value>`); throws `invalid <name>:` with one line per problem.
 */
export function parseShippedTable<K extends string, S extends z.ZodType<Record<K, string>>>(
  raw: unknown,
  row: S,
  key: K,
  name: string,
): ShippedTable<Readonly<z.output<S>>> {
  const schema = z
    .array(row)
    .min(1)
    .superRefine((rows, ctx) => {
      const seen = new Set<string>();
      rows.forEach((entry, index) => {
        const value = entry[key];
        if (seen.has(value)) {
          ctx.addIssue({ code: "custom", path: [index, key], message: `duplicate ${key} ${value}` });
        }
        seen.add(value);
      });
    });
  const result = schema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  - ${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`invalid ${name}:\n${problems.join("\n")}`);
  }
  const rows: readonly Readonly<z.output<S>>[] = Object.freeze(result.data.map((entry) => Object.freeze(entry)));
  const index = new Map<string, Readonly<z.output<S>>>(rows.map((entry) => [entry[key], entry]));
  return { rows, byKey: (value) => index.get(value) };
}

/** A row's rule for a list field that names each value once (a row's venues): `must not repeat a <what>`. */
export function refuseRepeats(ctx: z.RefinementCtx, values: readonly string[], field: string, what: string): void {
  if (new Set(values).size !== values.length) {
    ctx.addIssue({ code: "custom", path: [field], message: `must not repeat a ${what}` });
  }
}
