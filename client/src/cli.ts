// The `ftrade` command line (client/bin/ftrade.js): the typed client's methods as commands for people, with
// `--json` for scripts. Credentials come from client/src/profile.ts and are never printed; only `keys create`
// prints a key and secret, the ones it just made (the service shows them once).
import { Command, CommanderError, Option } from "commander";
import { KeysClient, TradingClient } from "./client.js";
import { ApiError, NetworkError, RedirectError, ThrottledError } from "./errors.js";
import { loadProfile, ProfileError, type Profile } from "./profile.js";
import type { Placement } from "./results.js";
import type { RetryEvent } from "./transport.js";
import type { Order, PlaceOrderRequest } from "./types.js";

export interface Io {
  env: NodeJS.ProcessEnv;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Exit codes: 0 done, 1 an error, 2 an order rejected by a risk rule. */
export const EXIT = { ok: 0, error: 1, rejected: 2 } as const;

type Row = Record<string, unknown>;

function cell(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (Array.isArray(value)) return value.map(cell).join(",");
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** Rows as an aligned text table with the given columns. */
export function table(rows: Row[], columns: string[]): string {
  const cells = rows.map((row) => columns.map((column) => cell(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (values: string[]): string =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join("\n") + "\n";
}

/** One record as `field  value` lines. */
function record(row: Row, fields = Object.keys(row)): string {
  const width = Math.max(...fields.map((f) => f.length));
  return fields.map((f) => `${f.padEnd(width)}  ${cell(row[f])}`).join("\n") + "\n";
}

const list = (value: string): string[] =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

/** The --from/--to options as a list's query, absent ones left out. */
function rangeOf(o: { from?: string; to?: string }): { from?: string; to?: string } {
  return { ...(o.from === undefined ? {} : { from: o.from }), ...(o.to === undefined ? {} : { to: o.to }) };
}

/** Every row of a walk over pages, in order. */
async function collect<T>(walk: AsyncIterable<T>): Promise<T[]> {
  const rows: T[] = [];
  for await (const row of walk) rows.push(row);
  return rows;
}

export async function main(argv: string[], io: Io): Promise<number> {
  let code: number = EXIT.ok;
  let json = false;
  const print = (value: unknown, human: () => string): void => {
    io.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : human());
  };
  const onRetry = (event: RetryEvent): void => {
    io.stderr.write(
      `retrying ${event.method} ${event.path} in ${(event.delayMs / 1000).toFixed(1)} s (${event.reason})\n`,
    );
  };
  const profile = (): Profile => loadProfile(io.env, program.opts<{ profile?: string }>().profile);
  const trading = (): TradingClient => {
    const p = profile();
    if (p.apiKey === undefined || p.apiSecret === undefined) {
      throw new ProfileError("no API key: set FTRADE_API_KEY and FTRADE_API_SECRET or use a profile");
    }
    return new TradingClient({ baseUrl: p.url, apiKey: p.apiKey, apiSecret: p.apiSecret, onRetry });
  };
  const keys = (): KeysClient => {
    const p = profile();
    if (p.userId === undefined) throw new ProfileError("no user: set FTRADE_USER_ID or use a profile");
    return new KeysClient({
      onRetry,
      baseUrl: p.apiUrl,
      userId: p.userId,
      ...(p.adminToken === undefined ? {} : { adminToken: p.adminToken }),
    });
  };
  /** A command's action that fetches one thing and prints it as a record (of `fields`; default all). */
  const shows =
    <A extends unknown[]>(fetch: (...args: A) => Promise<Row>, fields?: string[]) =>
    async (...args: A): Promise<void> => {
      const shown = await fetch(...args);
      print(shown, () => record(shown, fields));
    };
  /** A command's action that fetches rows and prints them as a table of `columns`. */
  const lists =
    <A extends unknown[]>(fetch: (...args: A) => Promise<Row[]>, columns: string[]) =>
    async (...args: A): Promise<void> => {
      const rows = await fetch(...args);
      print(rows, () => table(rows, columns));
    };
  const placed = (result: Placement): void => {
    if (result.kind === "rejected") code = EXIT.rejected;
    print({ result: result.kind, replayed: result.replayed, ...result.response }, () => {
      const order = result.response.order;
      const head = `${result.kind === "accepted" ? "accepted" : "REJECTED"}${result.replayed ? " (replayed)" : ""}: ${order.side} ${order.quantity} ${order.symbol} ${order.kind} -> ${order.status}\norder_id  ${order.order_id}\nclient_id ${order.client_id ?? "-"}\n`;
      const violations = result.response.violations.map((v) => `violation ${v.rule}: ${v.message}\n`).join("");
      const fills =
        result.response.fills.length > 0 ? table(result.response.fills, ["fill_id", "quantity", "price", "fee"]) : "";
      return head + violations + fills;
    });
  };

  const program = new Command("ftrade")
    .description("Trade on the funded trading service (credentials: FTRADE_* variables or a profile)")
    .option("--json", "print JSON for scripts instead of tables")
    .option("--profile <name>", "the profile to use from the profile file (FTRADE_PROFILE_FILE)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .hook("preAction", () => {
      json = program.opts<{ json?: boolean }>().json === true;
    });

  const keysCommand = program.command("keys").description("manage API keys (/api, as FTRADE_USER_ID)");
  keysCommand
    .command("create")
    .description("create a key; its key and secret are shown this once")
    .requiredOption("--label <label>")
    .option("--permissions <list>", "comma-separated scopes", "READ_ONLY,TRADE,MANAGE_ORDERS")
    .option("--webhook-url <url>")
    .option("--ip <list>", "comma-separated addresses or CIDR ranges allowed")
    .action(async (o: { label: string; permissions: string; webhookUrl?: string; ip?: string }) => {
      const created = await keys().create({
        label: o.label,
        permissions: list(o.permissions) as ("READ_ONLY" | "TRADE" | "MANAGE_ORDERS")[],
        ...(o.webhookUrl === undefined ? {} : { webhookUrl: o.webhookUrl }),
        ...(o.ip === undefined ? {} : { ipWhitelist: list(o.ip) }),
      });
      print(created, () =>
        record({
          id: created.apiKey.id,
          key: created.key,
          secret: created.secret,
          webhookSecret: created.webhookSecret,
        }),
      );
    });
  keysCommand
    .command("list")
    .action(lists(() => keys().list(), ["id", "label", "permissions", "createdAt", "expiresAt"]));
  keysCommand.command("revoke <id>").action(shows((id: string) => keys().revoke(id)));

  program
    .command("plans")
    .description("the plans an account can be opened on")
    .action(
      lists(() => trading().plans(), ["plan_id", "name", "starting_balance", "max_drawdown_pct", "daily_loss_pct"]),
    );
  program
    .command("tickers")
    .action(
      lists(
        () => trading().tickers(),
        ["symbol", "asset_class", "mark_price", "tick_size", "quantity_step", "min_quantity", "market_open"],
      ),
    );

  const account = program.command("account").description("open and inspect accounts");
  account
    .command("open")
    .requiredOption("--plan <plan_id>")
    .option("--label <label>")
    .option("--venue <venue>", "default venue")
    .action(async (o: { plan: string; label?: string; venue?: string }) => {
      const opened = await trading().openAccount({
        plan_id: o.plan,
        ...(o.label === undefined ? {} : { label: o.label }),
        ...(o.venue === undefined ? {} : { default_venue: o.venue as "GMX" | "OSTIUM" }),
      });
      print(opened, () => record(opened, ["account_id", "plan_id", "state", "balance", "default_venue"]));
    });
  account.command("show <account_id>").action(shows((id: string) => trading().account(id)));
  account.command("summary <account_id>").action(shows((id: string) => trading().summary(id)));
  account
    .command("cancel-after <account_id> [timeout_ms]")
    .description("the dead-man's switch: shows it, or arms it for timeout_ms (0 disarms; docs/risk.md)")
    .action(
      shows((id: string, timeout?: string) =>
        timeout === undefined ? trading().cancelAfter(id) : trading().setCancelAfter(id, Number(timeout)),
      ),
    );
  account
    .command("positions <account_id>")
    .action(
      lists(
        (id: string) => trading().positions(id),
        ["position_id", "symbol", "side", "quantity", "entry_price", "mark_price", "unrealized_pnl", "venue"],
      ),
    );
  account
    .command("flatten <account_id>")
    .description(
      "close every position at the market in one step, canceling the orders that protect none (exit 2 if any stays " +
        "open: its protective orders keep working, counted under KEPT)",
    )
    .action(async (id: string) => {
      const flat = await trading().flatten(id);
      if (flat.positions.length > 0) code = EXIT.rejected;
      print(flat, () => {
        const closes = flat.closes.map((c) => ({
          symbol: c.symbol,
          venue: c.venue,
          status: c.order?.status ?? "NOT_PLACED",
          filled: c.order?.filled_quantity ?? 0,
          kept: c.kept_orders.length,
          why: [...c.violations.map((v) => v.message), ...c.issues.map((i) => i.message)].join("; "),
        }));
        return (
          `canceled ${flat.canceled.length} order(s)\n` +
          (closes.length === 0 ? "" : table(closes, ["symbol", "venue", "status", "filled", "kept", "why"])) +
          (flat.positions.length === 0
            ? "flat\n"
            : `still open:\n${table(flat.positions, ["position_id", "symbol", "side", "quantity", "venue"])}`)
        );
      });
    });
  account
    .command("trades <account_id>")
    .description("every fill, oldest first")
    .option("--from <time>")
    .option("--to <time>")
    .action(
      lists(
        (id: string, o: { from?: string; to?: string }) => collect(trading().allTrades(id, rangeOf(o))),
        ["fill_id", "symbol", "side", "quantity", "price", "fee", "realized_pnl", "executed_at"],
      ),
    );

  account
    .command("orders <account_id>")
    .description("every order in any state, oldest first (with --client-id: the order of that client_id)")
    .option("--from <time>")
    .option("--to <time>")
    .option("--client-id <id>")
    .action(
      lists(
        async (id: string, o: { from?: string; to?: string; clientId?: string }): Promise<Order[]> => {
          if (o.clientId === undefined) return collect(trading().allOrders(id, rangeOf(o)));
          const found = await trading().orderByClientId(id, o.clientId);
          return found === undefined ? [] : [found];
        },
        ["order_id", "client_id", "symbol", "side", "kind", "quantity", "filled_quantity", "status"],
      ),
    );

  const orderBody = (o: OrderOptions): PlaceOrderRequest => ({
    account_id: o.account,
    symbol: o.symbol,
    side: o.side.toUpperCase() as "BUY" | "SELL",
    kind: o.kind.toUpperCase() as PlaceOrderRequest["kind"],
    quantity: o.quantity,
    ...(o.price === undefined ? {} : { limit_price: o.price }),
    ...(o.trigger === undefined ? {} : { trigger_price: o.trigger }),
    ...(o.tif === undefined ? {} : { time_in_force: o.tif.toUpperCase() as PlaceOrderRequest["time_in_force"] }),
    ...(o.clientId === undefined ? {} : { client_id: o.clientId }),
    ...(o.parent === undefined ? {} : { parent_order_id: o.parent }),
    ...(o.reduceOnly === true ? { reduce_only: true } : {}),
  });
  const orderOptions = (command: Command): Command =>
    command
      .requiredOption("--account <account_id>")
      .requiredOption("--symbol <symbol>")
      .addOption(new Option("--side <side>").choices(["BUY", "SELL", "buy", "sell"]).makeOptionMandatory())
      .option("--kind <kind>", "MARKET, LIMIT, STOP or TAKE_PROFIT", "MARKET")
      .requiredOption("--quantity <decimal>")
      .option("--price <decimal>", "limit price")
      .option("--trigger <decimal>", "trigger price (STOP, TAKE_PROFIT)")
      .option("--tif <tif>", "time in force")
      .option("--client-id <id>", "your id for the order (default: a fresh one, kept across retries)")
      .option("--parent <order_id>", "make this a TP/SL child of that order")
      .option("--reduce-only");
  const order = program.command("order").description("place, test, cancel and amend orders");
  orderOptions(order.command("place")).action(async (o: OrderOptions) => {
    placed(await trading().placeOrder(orderBody(o)));
  });
  orderOptions(order.command("test").description("the violations and headroom of an order, placing nothing")).action(
    async (o: OrderOptions) => {
      const result = await trading().testOrder(orderBody(o));
      if (result.kind === "rejected") code = EXIT.rejected;
      print(
        { result: result.kind, ...result.response },
        () =>
          `${result.kind === "accepted" ? "would be accepted" : "would be REJECTED"}\n` +
          result.response.violations.map((v) => `violation ${v.rule}: ${v.message}\n`).join("") +
          record(result.response.risk_headroom),
      );
    },
  );
  order.command("show <order_id>").action(shows((id: string) => trading().order(id)));
  order
    .command("cancel <order_id>")
    .action(shows((id: string) => trading().cancelOrder(id), ["order_id", "status", "filled_quantity"]));
  order
    .command("cancel-all")
    .description("cancel every working order of an account (of one symbol), in one step")
    .requiredOption("--account <account_id>")
    .option("--symbol <symbol>", "only this symbol's orders")
    .action(
      lists(
        (o: { account: string; symbol?: string }) => trading().cancelAllOrders(o.account, o.symbol),
        ["order_id", "symbol", "side", "kind", "status", "filled_quantity"],
      ),
    );
  order
    .command("amend <order_id>")
    .option("--price <decimal>", "new limit price")
    .option("--trigger <decimal>", "new trigger price")
    .option("--quantity <decimal>", "new total quantity")
    .action(
      shows(
        (id: string, o: { price?: string; trigger?: string; quantity?: string }) =>
          trading().amendOrder(id, {
            ...(o.price === undefined ? {} : { limit_price: o.price }),
            ...(o.trigger === undefined ? {} : { trigger_price: o.trigger }),
            ...(o.quantity === undefined ? {} : { quantity: o.quantity }),
          }),
        ["order_id", "status", "quantity", "limit_price", "trigger_price"],
      ),
    );

  program
    .command("position")
    .description("close positions")
    .command("close")
    .requiredOption("--account <account_id>")
    .requiredOption("--symbol <symbol>")
    .option("--quantity <decimal>", "how much (default all)")
    .option("--client-id <id>")
    .action(async (o: { account: string; symbol: string; quantity?: string; clientId?: string }) => {
      placed(
        await trading().closePosition({
          account_id: o.account,
          symbol: o.symbol,
          ...(o.quantity === undefined ? {} : { quantity: o.quantity }),
          ...(o.clientId === undefined ? {} : { client_id: o.clientId }),
        }),
      );
    });
  program
    .command("breaches <account_id>")
    .action(
      lists(
        (id: string) => trading().breaches(id),
        ["breach_id", "rule", "severity", "threshold", "value", "occurred_at"],
      ),
    );
  program.command("analytics <account_id>").action(shows((id: string) => trading().analytics(id)));

  try {
    await program.parseAsync(argv, { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.error;
    if (error instanceof ApiError) {
      const detail =
        error.issues.map((i) => `  ${i.path || "(body)"}: ${i.message}\n`).join("") +
        (typeof error.body.message === "string" ? `  ${error.body.message}\n` : "");
      io.stderr.write(
        `error: ${error.status} ${error.code}${error.requestId ? ` (request ${error.requestId})` : ""}\n${detail}`,
      );
      if (json) io.stdout.write(`${JSON.stringify({ status: error.status, ...error.body })}\n`);
    } else if (
      error instanceof NetworkError ||
      error instanceof ProfileError ||
      error instanceof RedirectError ||
      error instanceof ThrottledError
    ) {
      io.stderr.write(`error: ${error.message}\n`);
    } else {
      throw error;
    }
    return EXIT.error;
  }
}

interface OrderOptions {
  account: string;
  symbol: string;
  side: string;
  kind: string;
  quantity: string;
  price?: string;
  trigger?: string;
  tif?: string;
  clientId?: string;
  parent?: string;
  reduceOnly?: boolean;
}
