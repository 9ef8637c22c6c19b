// Test helpers for the hand-written protobuf codecs: arbitrary text, unknown fields of every wire type, and a
// way to splice them between the known fields of an encoded message.
import fc from "fast-check";

export const text = fc.oneof(
  fc.constant(""),
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ minLength: 100, maxLength: 400 }),
);

/** An unknown field (numbers 8..2^29-1) of any wire type, encoded by hand. */
export const unknownField = fc
  .tuple(
    fc.integer({ min: 8, max: 2 ** 29 - 1 }),
    fc.constantFrom(0, 1, 2, 3, 5),
    fc.uint8Array({ maxLength: 20 }),
    fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  )
  .map(([field, wire, bytes, big]) => encodeUnknown(field, wire, bytes, big));

function varint(value: bigint): number[] {
  const out: number[] = [];
  let v = value;
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

function encodeUnknown(field: number, wire: number, bytes: Uint8Array, big: bigint): Buffer {
  const tag = (n: number, w: number): number[] => varint(BigInt(n) * 8n + BigInt(w));
  const body: number[] = [];
  if (wire === 0) body.push(...varint(big));
  else if (wire === 1) body.push(...Array.from({ length: 8 }, (_, i) => bytes[i] ?? i));
  else if (wire === 2) body.push(...varint(BigInt(bytes.length)), ...bytes);
  else if (wire === 5) body.push(...Array.from({ length: 4 }, (_, i) => bytes[i] ?? i));
  else body.push(...tag(1, 0), ...varint(big), ...tag(2, 2), 1, 0x41, ...tag(field, 4)); // a group
  return Buffer.from([...tag(field, wire), ...body]);
}

/** Inserts unknown fields between the known fields of an encoded message (at field boundaries). */
export function withUnknown(encoded: Buffer, unknown: Buffer[]): Buffer {
  // Walk the known fields so the unknown ones land on boundaries, never inside a field.
  const parts: Buffer[] = [];
  let pos = 0;
  let u = 0;
  while (pos < encoded.length) {
    if (u < unknown.length) parts.push(unknown[u++] ?? Buffer.alloc(0));
    const start = pos;
    const tag = encoded[pos++] ?? 0;
    let length = 0;
    let shift = 0;
    let byte = 0;
    if ((tag & 7) === 2) {
      do {
        byte = encoded[pos++] ?? 0;
        length += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      } while (byte >= 0x80);
      pos += length;
    } else {
      do byte = encoded[pos++] ?? 0;
      while (byte >= 0x80);
    }
    parts.push(encoded.subarray(start, pos));
  }
  parts.push(...unknown.slice(u));
  return Buffer.concat(parts);
}

/** What a value looks like after a trip through UTF-8 (lone surrogates become U+FFFD). */
export const utf8 = (value: string): string => Buffer.from(value, "utf8").toString("utf8");
