// Small HTTP helpers for end-to-end tests: create keys on /api, call /v1 with a key.
export interface CreatedKey {
  id: string;
  key: string;
  secret: string;
  webhookSecret?: string;
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export async function request(url: string, init: RequestInit = {}): Promise<JsonResponse> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: Record<string, unknown> = {};
  if (text !== "") body = JSON.parse(text) as Record<string, unknown>;
  return { status: response.status, headers: response.headers, body };
}

/**
 * Every envelope of an account from the catch-up list (`GET /v1/account/{id}/events`), page after page in
 * sequence order; `get` sends a GET with the caller's key. A page answered other than 200 fails the read.
 */
export async function accountEvents<T extends { sequence?: unknown } = Record<string, unknown>>(
  get: (path: string) => Promise<JsonResponse>,
  accountId: string,
): Promise<T[]> {
  const all: T[] = [];
  for (let after = 0; ;) {
    const page = await get(`/v1/account/${accountId}/events?after=${after}&limit=1000`);
    if (page.status !== 200) throw new Error(`events of ${accountId}: ${page.status} ${JSON.stringify(page.body)}`);
    const data = page.body.data as T[];
    all.push(...data);
    if (page.body.has_more !== true) return all;
    after = Number(data.at(-1)?.sequence);
  }
}

export async function createKey(
  api: string,
  userId: string,
  body: Record<string, unknown> = { label: "bot", permissions: ["READ_ONLY", "TRADE"] },
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  return request(`${api}/api/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-user-id": userId, ...headers },
    body: JSON.stringify(body),
  });
}

/**
 * Sends as a well-behaved client does: a `503` (which must carry `Retry-After`) is sent again after the wait it
 * names, until another answer comes (at most `tries` sends). `unavailable` counts the 503s. Only for requests
 * that a 503 leaves undone or that are idempotent (docs/decisions.md).
 */
export async function settled(
  send: () => Promise<JsonResponse>,
  tries = 30,
): Promise<JsonResponse & { unavailable: number }> {
  for (let unavailable = 0; ; unavailable++) {
    const answer = await send();
    if (answer.status !== 503 || unavailable + 1 >= tries) return { ...answer, unavailable };
    const wait = Number(answer.headers.get("retry-after"));
    if (!Number.isFinite(wait) || wait <= 0) throw new Error(`503 without Retry-After: ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

/** `createKey`, sent again after each 503 (`settled`). */
export async function createKeySettled(
  api: string,
  userId: string,
  body?: Record<string, unknown>,
): Promise<JsonResponse & { unavailable: number }> {
  return settled(() => createKey(api, userId, body));
}

export async function newKey(api: string, userId: string, body?: Record<string, unknown>): Promise<CreatedKey> {
  const created = await createKey(api, userId, body);
  if (created.status !== 201) throw new Error(`key creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  const apiKey = created.body.apiKey as { id: string };
  const result: CreatedKey = { id: apiKey.id, key: String(created.body.key), secret: String(created.body.secret) };
  if (typeof created.body.webhookSecret === "string") result.webhookSecret = created.body.webhookSecret;
  return result;
}

export async function v1(
  base: string,
  path: string,
  key: Pick<CreatedKey, "key" | "secret"> | undefined,
  init: Omit<RequestInit, "headers"> & { headers?: Record<string, string> } = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (key !== undefined) {
    headers["x-api-key"] = key.key;
    headers["x-api-secret"] = key.secret;
  }
  return request(`${base}${path}`, { ...init, headers });
}

export async function revoke(api: string, userId: string, id: string): Promise<JsonResponse> {
  return request(`${api}/api/api-keys/${id}`, { method: "DELETE", headers: { "x-user-id": userId } });
}

/** The same credential with its last character changed: well-formed, but wrong. */
export const flipLast = (value: string): string => value.slice(0, -1) + (value.endsWith("0") ? "1" : "0");
