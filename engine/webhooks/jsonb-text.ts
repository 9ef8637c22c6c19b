// JSON text as PostgreSQL prints a `jsonb` value: object keys shortest first, then by their UTF-8 bytes, with
// `": "` and `", "` between the parts. An event read back from the outbox (`data::text`) is printed so; a live
// event (the rows a shard just committed, docs/streaming.md) is printed the same way, so a stream carries the
// same bytes whichever path an event took.

function compareKeys(a: string, b: string): number {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length - right.length || Buffer.compare(left, right);
}

function print(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(print).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => compareKeys(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${print(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The `jsonb` text of a JSON text. */
export function jsonbText(json: string): string {
  return print(JSON.parse(json));
}
