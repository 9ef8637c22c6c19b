// What one connection may leave in the one PGlite session for the next (docs/embedded-database.md, "Session
// state"): which statements may change the session beyond their transaction, and the reset that undoes it.
import { FRONTEND, simpleQuery, type Message } from "./wire.js";

/** Statements that begin so change nothing beyond their transaction, unless they call something below. */
const TRANSACTION_SCOPED =
  /^\s*(select|insert|update|delete|with|values|table|show|begin|start\s+transaction|commit|end|rollback|abort)\b/i;
/** `set_config(…, true)`: a setting for the transaction only. */
const LOCAL_SET_CONFIG = /set_config\s*\([^()]*,\s*true\s*\)/gi;
/** Calls and clauses that reach the session from such a statement: settings, temporary tables, session locks. */
const SESSION_REACH = /set_config|\btemp(orary)?\b|advisory_(lock|unlock)/i;

/** False only for SQL that cannot change the session beyond its transaction (one statement, listed above). */
export function mayChangeSession(sql: string): boolean {
  const statement = sql.replace(/;\s*$/, "");
  if (!TRANSACTION_SCOPED.test(statement) || statement.includes(";")) return true;
  return SESSION_REACH.test(statement.replace(LOCAL_SET_CONFIG, ""));
}

/** A startup packet that names more than the user and the database sets those parameters for the session. */
export function startupMayChangeSession(packet: Uint8Array): boolean {
  const bytes = Buffer.from(packet.buffer, packet.byteOffset, packet.byteLength);
  let offset = 8;
  while (offset < bytes.length && bytes[offset] !== 0) {
    const keyEnd = bytes.indexOf(0, offset);
    if (keyEnd < 0) return true;
    const key = bytes.toString("utf8", offset, keyEnd);
    if (key !== "user" && key !== "database") return true;
    const valueEnd = bytes.indexOf(0, keyEnd + 1);
    if (valueEnd < 0) return true;
    offset = valueEnd + 1;
  }
  return false;
}

/** The SQL text of a Query or Parse message, else undefined. */
export function sqlOf(message: Message): string | undefined {
  const bytes = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength);
  if (message.type === FRONTEND.query) return bytes.toString("utf8", 5, bytes.indexOf(0, 5));
  if (message.type !== FRONTEND.parse) return undefined;
  const nameEnd = bytes.indexOf(0, 5);
  return nameEnd < 0 ? "" : bytes.toString("utf8", nameEnd + 1, bytes.indexOf(0, nameEnd + 1));
}

/**
 * DISCARD ALL without its DEALLOCATE ALL, which would drop the other connections' prepared statements: the
 * session's settings, role, cursors, LISTENs, session advisory locks, temporary tables and sequence caches, and
 * the statements prepared in SQL (`PREPARE`, not renamed per connection) go back to a fresh session's.
 */
export const RESET_SESSION = simpleQuery(
  [
    "SET SESSION AUTHORIZATION DEFAULT",
    "RESET ALL",
    "CLOSE ALL",
    "UNLISTEN *",
    "SELECT pg_advisory_unlock_all()",
    "DISCARD TEMP",
    "DISCARD SEQUENCES",
    "DO $$ DECLARE s record; BEGIN FOR s IN SELECT name FROM pg_prepared_statements WHERE from_sql LOOP " +
      "EXECUTE format('DEALLOCATE %I', s.name); END LOOP; END $$",
  ].join("; "),
);
