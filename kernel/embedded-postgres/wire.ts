// The PostgreSQL wire protocol as the embedded database's front needs it: message framing, the codes it reads,
// the transaction status a response ends in, and the rewrite of statement and portal names per connection.

export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;
export const PROTOCOL_3 = 196608;
/** Startup packets are small; anything larger is not a PostgreSQL client. */
export const MAX_STARTUP_LENGTH = 10_000;
/**
 * The longest message the front reads (PostgreSQL's own bound is 1 GiB): a longer one is refused with 54000
 * before any of its body is buffered (docs/embedded-database.md).
 */
export const MAX_MESSAGE_LENGTH = 64 * 1024 * 1024;

/** The protocol names each message type, transaction status and Close target by one ASCII letter. */
const letter = (name: string): number => name.charCodeAt(0);

/** The frontend message types the front reads, by name. */
export const FRONTEND = {
  parse: letter("P"),
  bind: letter("B"),
  describe: letter("D"),
  execute: letter("E"),
  close: letter("C"),
  flush: letter("H"),
  sync: letter("S"),
  query: letter("Q"),
  terminate: letter("X"),
} as const;

/** The backend message types the front reads or writes. */
const BACKEND = { readyForQuery: letter("Z"), errorResponse: letter("E") } as const;

/** ReadyForQuery's transaction status outside any transaction block. */
export const IDLE = letter("I");

/** Close's target kind naming a prepared statement (`P` names a portal). */
const STATEMENT = letter("S");

/** Frontend messages of the extended-query protocol: the session stays lent until a Sync ends them. */
export const EXTENDED = new Set<number>([
  FRONTEND.parse,
  FRONTEND.bind,
  FRONTEND.describe,
  FRONTEND.execute,
  FRONTEND.close,
  FRONTEND.flush,
]);

/** A frontend message with its type byte and length (startup packets have neither type nor `type`). */
export interface Message {
  type: number | undefined;
  bytes: Uint8Array;
}

function cstring(buffer: Buffer, offset: number): { value: string; end: number } {
  const end = buffer.indexOf(0, offset);
  if (end < 0) throw new Error("unterminated string in a frontend message");
  return { value: buffer.toString("utf8", offset, end), end: end + 1 };
}

function frame(type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = type;
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

export function simpleQuery(sql: string): Uint8Array {
  return frame(FRONTEND.query, Buffer.from(`${sql}\0`, "utf8"));
}

export const SYNC_MESSAGE = frame(FRONTEND.sync, Buffer.alloc(0));

/** An ErrorResponse the client's driver understands (used before a connection is served). */
export function errorResponse(severity: string, code: string, message: string): Buffer {
  const body = Buffer.from(`S${severity}\0V${severity}\0C${code}\0M${message}\0\0`, "utf8");
  return frame(BACKEND.errorResponse, body);
}

/** The transaction status of the response's last message when it is ReadyForQuery, else undefined. */
export function finalReadyStatus(response: Uint8Array): number | undefined {
  let offset = 0;
  let last: number | undefined;
  while (offset + 5 <= response.length) {
    const type = response[offset] as number;
    const length =
      (((response[offset + 1] as number) << 24) |
        ((response[offset + 2] as number) << 16) |
        ((response[offset + 3] as number) << 8) |
        (response[offset + 4] as number)) >>>
      0;
    const next = offset + 1 + length;
    last = type === BACKEND.readyForQuery && next <= response.length ? response[offset + 5] : undefined;
    offset = next;
  }
  return last;
}

/**
 * Rewrites the statement and portal names of an extended-query message into the connection's own namespace
 * (the unnamed statement and portal stay unnamed: the session is lent for the whole exchange that uses them).
 * Returns the rewritten message and, for Parse and Close of a statement, the statement name it declares.
 */
export function scopeNames(message: Message, prefix: string): { bytes: Uint8Array; parsed?: string; closed?: string } {
  const scope = (name: string): string => (name === "" ? "" : `${prefix}${name}`);
  const buffer = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength);
  const body = 5;
  switch (message.type) {
    case FRONTEND.parse: {
      const name = cstring(buffer, body);
      if (name.value === "") return { bytes: message.bytes };
      const scoped = scope(name.value);
      return {
        bytes: frame(FRONTEND.parse, Buffer.concat([Buffer.from(`${scoped}\0`, "utf8"), buffer.subarray(name.end)])),
        parsed: scoped,
      };
    }
    case FRONTEND.bind: {
      const portal = cstring(buffer, body);
      const statement = cstring(buffer, portal.end);
      if (portal.value === "" && statement.value === "") return { bytes: message.bytes };
      return {
        bytes: frame(
          FRONTEND.bind,
          Buffer.concat([
            Buffer.from(`${scope(portal.value)}\0${scope(statement.value)}\0`, "utf8"),
            buffer.subarray(statement.end),
          ]),
        ),
      };
    }
    case FRONTEND.describe:
    case FRONTEND.close: {
      const kind = buffer[body] as number;
      const name = cstring(buffer, body + 1);
      if (name.value === "") return { bytes: message.bytes };
      const scoped = scope(name.value);
      const bytes = frame(message.type, Buffer.concat([Buffer.from([kind]), Buffer.from(`${scoped}\0`, "utf8")]));
      return message.type === FRONTEND.close && kind === STATEMENT ? { bytes, closed: scoped } : { bytes };
    }
    case FRONTEND.execute: {
      const portal = cstring(buffer, body);
      if (portal.value === "") return { bytes: message.bytes };
      return {
        bytes: frame(
          FRONTEND.execute,
          Buffer.concat([Buffer.from(`${scope(portal.value)}\0`, "utf8"), buffer.subarray(portal.end)]),
        ),
      };
    }
    default:
      return { bytes: message.bytes };
  }
}
