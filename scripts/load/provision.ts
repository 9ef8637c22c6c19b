// Creates the keys and accounts a load run uses, through the public interfaces only (/api and /v1), so it
// works against the stack the driver starts and against any running one.
//
// Each load key belongs to a user of its own and has one funded account. The account is opened with a second
// key of the same user (the "setup" key), so the load key itself has sent nothing when the run starts: the
// rate limit counts every accepted request, and a load key at exactly its limit has no room for one more.
import { planSymbol, type SymbolPlan, type TickerInfo } from "./mix.js";

/** Challenge 200K (engine/basics/plans.json): margin enough for every order of the mix. */
export const DEFAULT_PLAN_ID = "15ef9280-770d-4664-9de7-93fcd7677a98";
export const DEFAULT_SYMBOLS = ["BTC-USD", "ETH-USD"] as const;

export interface LoadKey {
  index: number;
  userId: string;
  keyId: string;
  key: string;
  secret: string;
  accountId: string;
  symbol: string;
}

/** The file the k6 scripts read with open(); also what the driver uses. */
export interface Provisioned {
  /** Base URL of the /v1 listener the keys were made on. */
  baseUrl: string;
  createdAt: string;
  planId: string;
  symbols: SymbolPlan[];
  keys: LoadKey[];
}

export interface ProvisionOptions {
  /** Base URL of /v1, e.g. http://127.0.0.1:8080 */
  v1: string;
  /** Base URL of /api, e.g. http://127.0.0.1:8081 */
  api: string;
  /** WALLET_ADMIN_TOKEN of the target, when it has one. */
  adminToken?: string | undefined;
  keys: number;
  planId?: string;
  symbols?: readonly string[];
  /** Prefix of the user ids (default `load-<time>`), so runs never share users. */
  userPrefix?: string;
  concurrency?: number;
}

interface JsonAnswer {
  status: number;
  body: unknown;
}

/** Tries a call answered 503 (a service busy on a loaded machine) this many times in all, a second apart. */
export const ATTEMPTS_ON_503 = 5;

/**
 * One call, its body parsed as JSON when it is JSON. A 503 is tried again, up to `attempts` in all: a create
 * answered 503 may have been made, and its retry then makes one more key or account, unused.
 */
export async function call(
  url: string,
  init: RequestInit,
  attempts = ATTEMPTS_ON_503,
  pauseMs = 1000,
): Promise<JsonAnswer> {
  let response = await fetch(url, init);
  for (let attempt = 1; response.status === 503 && attempt < attempts; attempt++) {
    await response.arrayBuffer();
    await new Promise((r) => setTimeout(r, pauseMs));
    response = await fetch(url, init);
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text for the message
  }
  return { status: response.status, body };
}

function expect(answer: JsonAnswer, status: number, what: string): Record<string, unknown> {
  if (answer.status !== status || typeof answer.body !== "object" || answer.body === null) {
    throw new Error(`${what}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body as Record<string, unknown>;
}

async function inParallel(count: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, count)) }, worker));
}

export async function provision(options: ProvisionOptions): Promise<Provisioned> {
  const planId = options.planId ?? DEFAULT_PLAN_ID;
  const symbols = options.symbols ?? DEFAULT_SYMBOLS;
  if (symbols.length === 0) throw new Error("at least one symbol");
  const prefix = options.userPrefix ?? `load-${Date.now().toString(36)}`;
  const apiHeaders: Record<string, string> = { "content-type": "application/json" };
  if (options.adminToken !== undefined) apiHeaders.authorization = `Bearer ${options.adminToken}`;

  const createKey = async (userId: string, label: string, permissions: string[]) => {
    const body = expect(
      await call(`${options.api}/api/api-keys`, {
        method: "POST",
        headers: { ...apiHeaders, "x-user-id": userId },
        body: JSON.stringify({ label, permissions }),
      }),
      201,
      `creating a key for ${userId}`,
    );
    const apiKey = body.apiKey as { id?: unknown } | undefined;
    return { id: String(apiKey?.id), key: String(body.key), secret: String(body.secret) };
  };
  const v1Headers = (k: { key: string; secret: string }): Record<string, string> => ({
    "content-type": "application/json",
    "x-api-key": k.key,
    "x-api-secret": k.secret,
  });

  let firstSetup: { key: string; secret: string } | undefined;
  const keys: LoadKey[] = [];
  await inParallel(options.keys, options.concurrency ?? 8, async (index) => {
    const userId = `${prefix}-${index}`;
    const setup = await createKey(userId, "load setup", ["READ_ONLY", "TRADE"]);
    if (index === 0) firstSetup = setup;
    const load = await createKey(userId, "load", ["READ_ONLY", "TRADE", "MANAGE_ORDERS"]);
    const account = expect(
      await call(`${options.v1}/v1/account`, {
        method: "POST",
        headers: v1Headers(setup),
        body: JSON.stringify({ plan_id: planId, label: `load ${index}` }),
      }),
      201,
      `opening the account of ${userId}`,
    );
    keys[index] = {
      index,
      userId,
      keyId: load.id,
      key: load.key,
      secret: load.secret,
      accountId: String(account.account_id),
      symbol: symbols[index % symbols.length] ?? "",
    };
  });

  if (firstSetup === undefined) throw new Error("no key was created");
  const tickers = expect(
    await call(`${options.v1}/v1/tickers`, { headers: v1Headers(firstSetup) }),
    200,
    "reading the tickers",
  );
  const rows = (tickers.data ?? []) as TickerInfo[];
  const plans = symbols.map((symbol) => {
    const row = rows.find((r) => r.symbol === symbol);
    if (row === undefined) throw new Error(`no ticker ${symbol}`);
    return planSymbol(row);
  });
  return { baseUrl: options.v1, createdAt: new Date().toISOString(), planId, symbols: plans, keys };
}
