// The keys of an account's idempotency records (docs/engine.md, "Idempotency", "Request ids"): a caller's
// client_id as it is, a gateway's request id in a space of its own in the same table.

/**
 * What marks a request id among an account's record keys: the unit separator (0x1F), which no client_id holds
 * (client_ids are printable ASCII), so a request id and a client_id never name the same record.
 */
const REQUEST_ID_MARK = "\x1f";

/** What a placement is deduplicated by: the caller's client_id, else the gateway's request id. */
export type IdempotencyKey = { readonly client_id: string } | { readonly request_id: string };

/** The key of a placement: its client_id when it has one (it governs), else its request id, else none. */
export function idempotencyKey(clientId: string | null, requestId: string | null): IdempotencyKey | null {
  if (clientId !== null) return { client_id: clientId };
  return requestId === null ? null : { request_id: requestId };
}

/**
 * The key of a record in the account's table of records (`client_ids`), its filter of forgotten keys and the
 * table of spent keys: a client_id as it is, a request id after REQUEST_ID_MARK.
 */
export function recordKey(key: { readonly client_id?: string; readonly request_id?: string }): string {
  if (key.client_id !== undefined) return key.client_id;
  if (key.request_id !== undefined) return REQUEST_ID_MARK + key.request_id;
  throw new Error("an idempotency key names neither a client_id nor a request id");
}

/**
 * The record key a place or close request names, read before it is validated (the shell's look-up of a
 * forgotten key): the decision finds the same key when the request is valid, and refuses it otherwise.
 */
export function requestedRecordKey(request: { client_id?: unknown; request_id?: unknown }): string | undefined {
  if (typeof request.client_id === "string") return request.client_id;
  return typeof request.request_id === "string" ? REQUEST_ID_MARK + request.request_id : undefined;
}

/**
 * Whether a record key is a request id's. A request id is only ever sent again within the gateway's hold of one
 * call, so a forgotten one is dropped: it joins no filter and no table of spent keys.
 */
export function isRequestIdKey(key: string): boolean {
  return key.startsWith(REQUEST_ID_MARK);
}
