// Protocol-buffer wire primitives for the message codec (kernel/protobuf-message.ts): sizes and writers into
// one exactly-sized Buffer, and a reader that skips unknown fields as protobufjs does.

export const VARINT = 0;
export const I64 = 1;
export const LEN = 2;
export const START_GROUP = 3;
export const END_GROUP = 4;
export const I32 = 5;

/** Bytes of a varint holding an unsigned 32-bit value. */
export function varint32Size(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x20_0000 ? 3 : value < 0x1000_0000 ? 4 : 5;
}

export function writeVarint32(buf: Buffer, pos: number, value: number): number {
  while (value > 0x7f) {
    buf[pos++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buf[pos++] = value;
  return pos;
}

/** Bytes of a string field (tag, length, UTF-8 bytes); `bytes` is the UTF-8 length. */
export const stringFieldSize = (bytes: number): number => 1 + varint32Size(bytes) + bytes;

/** Writes tag, length and the UTF-8 bytes of a string whose UTF-8 length is `bytes`. */
export function writeString(buf: Buffer, pos: number, tag: number, value: string, bytes: number): number {
  buf[pos++] = tag;
  pos = writeVarint32(buf, pos, bytes);
  // Buffer.write encodes a lone surrogate as U+FFFD, the same 3 bytes Buffer.byteLength counted.
  return bytes === 0 ? pos : pos + buf.write(value, pos, bytes, "utf8");
}

/** Writes tag, length and the bytes of a bytes field. */
export function writeBytes(buf: Buffer, pos: number, tag: number, value: Uint8Array): number {
  buf[pos++] = tag;
  pos = writeVarint32(buf, pos, value.length);
  buf.set(value, pos);
  return pos + value.length;
}

/** UTF-8 length, 0 for an absent field (null/undefined: protobufjs writes nothing either). */
export const utf8Length = (value: string | null | undefined): number =>
  value === undefined || value === null || value === "" ? 0 : Buffer.byteLength(value, "utf8");

/** A message being read: the buffer, the position, and the end of the message. */
export class Reader {
  pos = 0;
  /** The high 32 bits (unsigned) of the last varint read. */
  hi = 0;

  constructor(
    readonly buf: Buffer,
    readonly end: number,
  ) {}

  /** Reads a varint and returns its low 32 bits unsigned; the high half is left in `hi`. */
  varint(): number {
    const { buf, end } = this;
    let lo = 0;
    let hi = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) throw new RangeError("truncated varint");
      const byte = buf[this.pos++] ?? 0;
      if (i < 4) {
        lo |= (byte & 0x7f) << shift;
      } else if (i === 4) {
        lo |= (byte & 0x0f) << 28;
        hi = (byte & 0x7f) >>> 4;
      } else {
        hi |= (byte & 0x7f) << (7 * i - 32);
      }
      shift += 7;
      if (byte < 0x80) {
        this.hi = hi >>> 0;
        return lo >>> 0;
      }
    }
    throw new RangeError("invalid varint encoding");
  }

  /** A length-delimited field's payload bounds: returns its start and moves past it. */
  lengthDelimited(): number {
    const length = this.varint();
    if (this.hi !== 0 || length > this.end - this.pos) throw new RangeError("length out of range");
    const start = this.pos;
    this.pos += length;
    return start;
  }

  string(): string {
    const start = this.lengthDelimited();
    return start === this.pos ? "" : this.buf.toString("utf8", start, this.pos);
  }

  /** A bytes field as a view into the buffer (no copy). */
  bytes(): Buffer {
    const start = this.lengthDelimited();
    return this.buf.subarray(start, this.pos);
  }

  skip(wireType: number, fieldNumber: number): void {
    switch (wireType) {
      case VARINT:
        this.varint();
        return;
      case I64:
        this.advance(8);
        return;
      case LEN:
        this.lengthDelimited();
        return;
      case I32:
        this.advance(4);
        return;
      case START_GROUP:
        for (;;) {
          const tag = this.varint();
          if ((tag & 7) === END_GROUP) {
            if (tag >>> 3 !== fieldNumber) throw new RangeError("mismatched end group");
            return;
          }
          this.skip(tag & 7, tag >>> 3);
        }
      default:
        throw new RangeError(`invalid wire type ${wireType}`);
    }
  }

  private advance(bytes: number): void {
    if (bytes > this.end - this.pos) throw new RangeError("truncated field");
    this.pos += bytes;
  }
}
