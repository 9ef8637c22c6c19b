// How long a request may wait for its database, and how to tell "the database did not answer" from a fault.
// A bounded query carries pg's client-side `query_timeout`: past it, pg fails the query ("Query read timeout")
// and `pool.query` (or `transaction`) releases its connection with the error, which destroys the connection:
// the reply still owed on it can never be read by a later query (the embedded PGlite serves every connection
// from one session, so a stale reply would otherwise answer someone else). The server may still run the
// statement: a timed-out write is "may or may not have happened", like any call cut off (docs/runbook.md).
import type pg from "pg";

/** A query with its own client-side deadline (pg reads `query_timeout` from the query config too). */
export interface BoundedQuery extends pg.QueryConfig {
  query_timeout: number;
}

/** `text` and `values` as a query that fails after `timeoutMs` without an answer. */
export function bounded(timeoutMs: number, text: string, values?: unknown[], name?: string): BoundedQuery {
  return { text, values, query_timeout: timeoutMs, ...(name === undefined ? {} : { name }) };
}

/** The pool settings that bound waiting for a connection (a free slot, or a new connection's handshake). */
export function connectBound(timeoutMs: number): Pick<pg.PoolConfig, "connectionTimeoutMillis"> {
  return { connectionTimeoutMillis: timeoutMs };
}

/** pg's own messages for a query or connection that ran out of time or lost its socket. */
const UNAVAILABLE_MESSAGES = [
  "Query read timeout",
  "timeout exceeded when trying to connect",
  "Connection terminated",
  "Client has encountered a connection error and is not queryable",
];

/** Socket errors of a database that cannot be reached. */
const UNAVAILABLE_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTFOUND"]);

/**
 * SQLSTATEs of a database that cannot serve now: class 08 (connection exception), admin or crash shutdown,
 * cannot_connect_now (starting up), too_many_connections.
 */
function unavailableState(state: string): boolean {
  return state.startsWith("08") || state === "57P01" || state === "57P02" || state === "57P03" || state === "53300";
}

/**
 * Whether `error` says the database did not answer in time or could not be reached (as opposed to refusing a
 * statement: a constraint, a syntax error, a lost lease). Only these become a service's `*_unavailable`.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (UNAVAILABLE_ERRNOS.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return unavailableState(code);
  }
  if (UNAVAILABLE_MESSAGES.some((message) => error.message.startsWith(message))) return true;
  return error.cause !== undefined && error.cause !== error && isDatabaseUnavailable(error.cause);
}
