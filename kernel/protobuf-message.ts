// Messages of the hand-written codecs (kernel/session-codec.ts, kernel/wallet-codec.ts) described once, field
// by field, and written and read by one encoder and one decoder. The encoder sizes the message first and
// writes it into one exactly-sized Buffer; the decoder reads into one plain object with every field at its
// default, skipping unknown fields. Both give the same bytes and objects as protobufjs under kernel/grpc.ts's
// loader options (keepCase, longs: Number, defaults: true).
import type { Long } from "@grpc/proto-loader";
import {
  LEN,
  Reader,
  VARINT,
  stringFieldSize,
  utf8Length,
  varint32Size,
  writeBytes,
  writeString,
  writeVarint32,
} from "./protobuf-wire.js";

/** The field types the codecs carry, with their wire types; `strings` is `repeated string`. */
const KINDS = { uint32: VARINT, string: LEN, bytes: LEN, bool: VARINT, int64: VARINT, strings: LEN } as const;
type Kind = keyof typeof KINDS;
const KIND_NAMES = Object.keys(KINDS) as Kind[];

const FIELD = /^(repeated string|uint32|string|bytes|bool|int64) ([A-Za-z_][A-Za-z0-9_]*) = ([1-9]|1[0-5])$/;

interface Field {
  name: string;
  kind: Kind;
  /** Field number << 3 | wire type: the byte that opens the field on the wire (field numbers below 16). */
  tag: number;
}

export interface MessageCodec<T> {
  readonly fields: readonly Field[];
  /** The field of each tag, by tag. */
  readonly byTag: readonly (Field | undefined)[];
  /** Every field at its default (a repeated field's list is made fresh for each message). */
  readonly defaults: Readonly<Record<string, unknown>>;
  /** The repeated fields' names. */
  readonly lists: readonly string[];
  /** T as type only, so encode and decode infer it. */
  readonly message?: T;
}

const EMPTY = Buffer.alloc(0);
const MAX_FIELDS = 16;

/**
 * Describes a message in the words of its .proto definition, one field after the other in wire order:
 * `"uint32 id = 1; string method = 2; repeated string permissions = 3"`, each name the property of T that
 * holds the field. Field numbers 1 to 15 (their tag is one byte).
 */
export function messageCodec<T>(definition: string): MessageCodec<T> {
  const parsed = definition.split(";").map((text) => {
    const match = FIELD.exec(text.trim());
    if (match === null) throw new Error(`not a field this codec carries: ${JSON.stringify(text.trim())}`);
    const [, type = "", name = "", number = ""] = match;
    const kind = KIND_NAMES.find((known) => known === (type === "repeated string" ? "strings" : type));
    if (kind === undefined) throw new Error(`unknown field type ${type}`);
    return { name, kind, tag: (Number(number) << 3) | KINDS[kind] };
  });
  if (parsed.length > MAX_FIELDS) throw new Error(`a message of more than ${MAX_FIELDS} fields`);
  const defaults: Record<string, unknown> = {};
  for (const field of parsed) defaults[field.name] = defaultOf(field.kind);
  // The names as the object's own keys: the engine's interned strings, which property lookups compare fastest.
  const names = Object.keys(defaults);
  if (names.length !== parsed.length) throw new Error("a field name given twice");
  const fields: Field[] = parsed.map((field, i) => ({ ...field, name: names[i] ?? field.name }));
  const byTag: (Field | undefined)[] = [];
  for (const field of fields) {
    if (byTag[field.tag] !== undefined) throw new Error(`field number ${field.tag >>> 3} given twice`);
    byTag[field.tag] = field;
  }
  const lists = fields.filter((field) => field.kind === "strings").map((field) => field.name);
  return { fields, byTag: Array.from(byTag), defaults, lists };
}

// ---------------------------------------------------------------- int64 as two 32-bit halves

const TWO_32 = 4_294_967_296;
const TWO_63 = 9_223_372_036_854_775_808;

/** An int64 value as unsigned 32-bit halves (two's complement). */
interface Int64 {
  lo: number;
  hi: number;
}

/**
 * Splits an int64 field value into `into` (two's complement), as protobufjs's fromObject does for a number
 * (Long.fromNumber: NaN is 0, fractions truncate, out-of-range values saturate), a decimal string or a Long.
 */
function splitInt64(value: number | string | Long, into: Int64): void {
  if (typeof value === "number") {
    let n = Number.isNaN(value) ? 0 : Math.trunc(value);
    if (n >= TWO_63) {
      into.lo = 0xffff_ffff;
      into.hi = 0x7fff_ffff;
      return;
    }
    if (n <= -TWO_63) {
      into.lo = 0;
      into.hi = 0x8000_0000;
      return;
    }
    const negative = n < 0;
    if (negative) n = -n;
    let lo = n % TWO_32;
    let hi = (n - lo) / TWO_32;
    if (negative) {
      lo = ~lo + 1;
      hi = ~hi + (lo >>> 0 === 0 ? 1 : 0);
    }
    into.lo = lo >>> 0;
    into.hi = hi >>> 0;
    return;
  }
  const big = BigInt.asUintN(
    64,
    typeof value === "string" ? BigInt(value) : (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0),
  );
  into.lo = Number(big & 0xffff_ffffn);
  into.hi = Number(big >> 32n);
}

function varint64Size(lo: number, hi: number): number {
  let size = 1;
  while (hi !== 0 || lo > 0x7f) {
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
    size++;
  }
  return size;
}

function writeVarint64(buf: Buffer, pos: number, lo: number, hi: number): number {
  while (hi !== 0) {
    buf[pos++] = (lo & 0x7f) | 0x80;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  return writeVarint32(buf, pos, lo);
}

/** Signed int64 (`lo`, `hi` unsigned halves) as a number, as protobufjs's LongBits.toNumber does. */
function int64ToNumber(lo: number, hi: number): number {
  if (hi >>> 31 === 0) return lo + hi * TWO_32;
  lo = (~lo + 1) >>> 0;
  hi = ~hi >>> 0;
  if (lo === 0) hi = (hi + 1) >>> 0;
  return -(lo + hi * TWO_32);
}

// ---------------------------------------------------------------- encode

// What sizing measured, per field, for writing: sizes, UTF-8 lengths and int64 halves (module state: an
// encode runs to its end without yielding, and allocates nothing but its Buffer).
const sizes = new Int32Array(MAX_FIELDS);
const values: unknown[] = Array.from({ length: MAX_FIELDS }, () => undefined);
const measured = new Int32Array(MAX_FIELDS);
const int64s: Int64[] = Array.from({ length: MAX_FIELDS }, () => ({ lo: 0, hi: 0 }));

/** Bytes field `i` takes on the wire; 0 when it is left out. Records what writing it needs. */
function fieldSize(field: Field, value: unknown, i: number): number {
  switch (field.kind) {
    case "uint32":
      return value === 0 || value === undefined || value === null ? 0 : 1 + varint32Size(value as number);
    case "string": {
      const bytes = utf8Length(value as string | null | undefined);
      measured[i] = bytes;
      return bytes === 0 ? 0 : stringFieldSize(bytes);
    }
    case "bytes": {
      const length = (value as Uint8Array | null | undefined)?.length ?? 0;
      return length === 0 ? 0 : 1 + varint32Size(length) + length;
    }
    case "bool":
      return value === true ? 2 : 0;
    case "int64": {
      if (value === undefined || value === null || value === 0) return 0;
      const halves = int64s[i] as Int64;
      splitInt64(value as number | string | Long, halves);
      return halves.lo === 0 && halves.hi === 0 ? 0 : 1 + varint64Size(halves.lo, halves.hi);
    }
    case "strings": {
      let size = 0;
      for (const item of (value as readonly string[] | null | undefined) ?? [])
        size += stringFieldSize(utf8Length(item));
      return size;
    }
  }
}

/** Writes field `i` (only called for a field whose size is not 0); returns the position after it. */
function writeField(buf: Buffer, pos: number, field: Field, value: unknown, i: number): number {
  switch (field.kind) {
    case "uint32":
      buf[pos++] = field.tag;
      return writeVarint32(buf, pos, value as number);
    case "string":
      return writeString(buf, pos, field.tag, value as string, measured[i] ?? 0);
    case "bytes":
      return writeBytes(buf, pos, field.tag, value as Uint8Array);
    case "bool":
      buf[pos++] = field.tag;
      buf[pos++] = 1;
      return pos;
    case "int64": {
      const halves = int64s[i] as Int64;
      buf[pos++] = field.tag;
      return writeVarint64(buf, pos, halves.lo, halves.hi);
    }
    case "strings":
      for (const item of value as readonly string[]) pos = writeString(buf, pos, field.tag, item, utf8Length(item));
      return pos;
  }
}

/**
 * Encodes `message`. Scalars at their proto3 default (0, "", false, empty bytes, absent) are left out;
 * repeated fields write every element, empty ones included.
 */
export function encodeMessage<T>(codec: MessageCodec<T>, message: { readonly [K in keyof T]?: unknown }): Buffer {
  const source = message as Readonly<Record<string, unknown>>;
  const { fields } = codec;
  let size = 0;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as Field;
    const value = source[field.name];
    values[i] = value;
    const fieldBytes = fieldSize(field, value, i);
    sizes[i] = fieldBytes;
    size += fieldBytes;
  }
  const buf = Buffer.allocUnsafe(size);
  let pos = 0;
  for (let i = 0; i < fields.length; i++) {
    if (sizes[i] !== 0) pos = writeField(buf, pos, fields[i] as Field, values[i], i);
    values[i] = undefined;
  }
  return buf;
}

// ---------------------------------------------------------------- decode

function defaultOf(kind: Kind): unknown {
  switch (kind) {
    case "uint32":
    case "int64":
      return 0;
    case "string":
      return "";
    case "bytes":
      return EMPTY;
    case "bool":
      return false;
    case "strings":
      return [];
  }
}

function readField(reader: Reader, field: Field, out: Record<string, unknown>): void {
  switch (field.kind) {
    case "uint32":
      out[field.name] = reader.varint();
      return;
    case "string":
      out[field.name] = reader.string();
      return;
    case "bytes":
      out[field.name] = reader.bytes();
      return;
    case "bool":
      out[field.name] = (reader.varint() | reader.hi) !== 0;
      return;
    case "int64": {
      const lo = reader.varint();
      out[field.name] = int64ToNumber(lo, reader.hi);
      return;
    }
    case "strings":
      (out[field.name] as string[]).push(reader.string());
      return;
  }
}

/**
 * Decodes a message with every field present: absent ones at their default (defaults: true), bytes as views
 * into `buf` (no copy); unknown fields are skipped.
 */
export function decodeMessage<T>(codec: MessageCodec<T>, buf: Buffer): T {
  const out: Record<string, unknown> = { ...codec.defaults };
  for (const name of codec.lists) out[name] = [];
  const { byTag } = codec;
  const reader = new Reader(buf, buf.length);
  while (reader.pos < reader.end) {
    const tag = reader.varint();
    const field = tag < byTag.length ? byTag[tag] : undefined;
    if (field === undefined) reader.skip(tag & 7, tag >>> 3);
    else readField(reader, field, out);
  }
  return out as T;
}
