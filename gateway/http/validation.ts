// zod input validation into the registry's `invalid_payload` + `issues` shape.
import type { z } from "zod";
import { ServiceError, type Issue } from "../../kernel/errors.js";

/**
 * Issues carry the value they judged, so `toIssues` tells a missing field ("required") from one of the wrong
 * type (zod leaves `input` out otherwise, and every wrong type would read "required").
 */
export const REPORT_INPUT = { reportInput: true } as const;

/** Converts zod issues into the contract's `{ path, message }` entries, dotted paths. */
export function toIssues(error: z.ZodError, rename: (segment: string) => string = (s) => s): Issue[] {
  return error.issues
    .map((issue) => {
      let message = issue.message;
      if (issue.code === "unrecognized_keys") {
        return issue.keys.map((key) => ({
          path: [...issue.path.map(String), key].map(rename).join("."),
          message: "unknown field",
        }));
      }
      if ((issue.code === "invalid_type" || issue.code === "invalid_union") && issue.input === undefined) {
        message = "required";
      }
      return [{ path: issue.path.map(String).map(rename).join("."), message }];
    })
    .flat();
}

/** Parses `value` with `schema`, throwing the registry's invalid_payload error on failure. */
export function parse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  rename?: (segment: string) => string,
): z.infer<S> {
  const result = schema.safeParse(value, REPORT_INPUT);
  if (!result.success) throw ServiceError.invalid(toIssues(result.error, rename));
  return result.data;
}
