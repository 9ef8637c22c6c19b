// One socket of GET /v1/stream (docs/streaming.md): its operations (subscribe, unsubscribe, ping and the trading
// operations of gateway/v1/trading-ops.ts), one Sequencer (kernel/sequencer.ts) per subscribed account between
// the catch-up list (ListEvents) and the account's shared feed, the tickers it asked for, and the bound on what it
// may leave unread. Every answer is a JSON message; a bad operation gets an error answer and the socket stays open.
// Operations run in lanes (gateway/stream/lanes.ts): those on one account in the order sent, others side by side;
// an account's events wait while an operation on it runs, so an order's events follow its answer.
import type { WebSocket } from "ws";
import { ServiceError } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import { Sequencer } from "../../kernel/sequencer.js";
import type { Ticker__Output } from "../../proto/gen/engine/v1/Ticker.js";
import type { WebhookEvent__Output } from "../../proto/gen/engine/v1/WebhookEvent.js";
import { tickerJson } from "../v1/records.js";
import { envelopeJson } from "../v1/events.js";
import type { Caller } from "../v1/auth.js";
import type { AccountFeeds, TickerFeed } from "./feeds.js";
import { Lanes, type Reach } from "./lanes.js";
import { parseOp, type Op } from "./ops.js";
import { OrderAccounts } from "./reach.js";
import { answerMessage, trade, type TradingDeps } from "./trading.js";

/** Close codes (docs/streaming.md, docs/openapi.yaml). */
export const CLOSE = {
  /** The gateway is shutting down: reconnect (to another replica) with `after`. */
  goingAway: 1001,
  /** The key was revoked or expired. */
  keyRevoked: 4001,
  /** More than STREAM_MAX_BUFFERED_BYTES were left unread. */
  slowConsumer: 4008,
} as const;

export interface SessionDeps {
  feeds: AccountFeeds;
  tickers: TickerFeed;
  /** The catch-up list of an account's events (engine ListEvents, at most 1000 a page). */
  listEvents(
    userId: string,
    accountId: string,
    after: number,
  ): Promise<{ events: WebhookEvent__Output[]; hasMore: boolean }>;
  /** Charges one request of the key's rate limit: undefined when allowed, else the ms to wait. */
  charge(keyId: string): Promise<number | undefined>;
  /** The symbol of a ticker input (as GET /v1/tickers names it), undefined when unknown. */
  symbolOf(input: string): Promise<string | undefined>;
  /** What the trading operations run with (admission, rate limit, engine), shared with REST. */
  trading: TradingDeps;
  maxBufferedBytes: number;
  maxAccounts: number;
  log: Logger;
}

interface Subscription {
  sequencer: Sequencer<WebhookEvent__Output> | undefined;
  leave: () => void;
}

/**
 * Live events a subscription holds while it reads its catch-up; more are read again from ListEvents. Small: a
 * gateway may hold this for each of its sockets' subscriptions at once.
 */
export const MAX_HELD = 1_000;

/** Operations a socket may have waiting or running; past it an operation is answered `rate_limited` at once. */
export const MAX_QUEUED_OPS = 256;

/** The lane of the tickers subscription (never an account id). */
const TICKERS_LANE = "tickers";

/** Serialised envelopes of the last event per key: sockets of one key share one serialisation. */
const rendered = new WeakMap<WebhookEvent__Output, Map<string, string>>();

function envelopeText(event: WebhookEvent__Output, keyId: string): string {
  let byKey = rendered.get(event);
  if (byKey === undefined) rendered.set(event, (byKey = new Map<string, string>()));
  let text = byKey.get(keyId);
  if (text === undefined) byKey.set(keyId, (text = JSON.stringify(envelopeJson(event, keyId))));
  return text;
}

export class StreamSession {
  private readonly accounts = new Map<string, Subscription>();
  /** Symbols of the tickers subscription, or every symbol. */
  private readonly symbols = new Set<string>();
  private allSymbols = false;
  private leaveTickers: (() => void) | undefined;
  private closed = false;
  private readonly lanes = new Lanes();
  /** Operations waiting or running. */
  private queued = 0;
  /** Bytes of the answers and events waiting their turn: they count as unsent. */
  private held = 0;
  /** Events of accounts with an operation running, sent once its answer is. */
  private heldEvents = new Map<string, string[]>();
  /** The account of each order this socket saw in an answer. */
  private readonly orders = new OrderAccounts();

  constructor(
    readonly socket: WebSocket,
    readonly caller: Caller,
    private readonly deps: SessionDeps,
  ) {}

  /** Bytes the socket holds unsent, and the answers waiting their turn. */
  get buffered(): number {
    return this.socket.bufferedAmount + this.held;
  }

  /** One text message from the client. */
  message(text: string): void {
    const parsed = parseOp(text);
    if (this.queued >= MAX_QUEUED_OPS) {
      // Past the bound, answered at once: a client that does not wait for its answers is told to slow down.
      const refusal = new ServiceError("rate_limited", { reason: "too_many_pending_operations", queued: this.queued });
      const trading = "error" in parsed ? parsed.trading : parsed.op.op === "trade" ? parsed.op.trading : undefined;
      const echo = "error" in parsed ? parsed.echo : parsed.op.echo;
      this.sendJson(this.failure(trading?.name, echo, refusal));
      return;
    }
    this.queued++;
    const ended = (): void => {
      this.queued--;
      this.releaseEvents();
    };
    if ("error" in parsed) {
      // Decided now, sent once the answers before it are.
      const text = JSON.stringify(this.failure(parsed.trading?.name, parsed.echo, parsed.error));
      const bytes = Buffer.byteLength(text);
      this.held += bytes;
      void this.lanes.run(
        "all",
        () => {
          // A closed session counted nothing held (close() set it to 0).
          if (!this.closed) this.held -= bytes;
          this.sendText(text);
          return Promise.resolve();
        },
        ended,
      );
      this.cutIfTooSlow();
      return;
    }
    const op = parsed.op;
    void this.lanes.run(this.reachOf(op), () => this.settle(op), ended);
  }

  /** An error answer: in a trading operation's shape (`status`, `body`), else `{"op":"error", …}`. */
  private failure(name: string | undefined, echo: object, error: ServiceError): object {
    if (name === undefined) return { op: "error", ...echo, ...error.body() };
    return { op: name, ...echo, status: error.httpStatus, body: error.body() };
  }

  /** The accounts an operation touches, for its lane. */
  private reachOf(op: Op): Reach {
    if (op.op === "ping") return "all";
    if (op.op !== "trade") return op.channel === "account" ? [op.accountId] : [TICKERS_LANE];
    return this.orders.reachOf(op.trading.name, op.args);
  }

  /** Runs one operation; its failure is its answer. */
  private async settle(op: Op): Promise<void> {
    if (this.closed) return;
    if (op.op === "trade") {
      const answer = await trade(this.deps.trading, this.caller, { trading: op.trading, args: op.args });
      this.orders.learn(answer.body);
      this.sendJson(answerMessage(op.trading.name, op.echo, answer));
      return;
    }
    try {
      await this.run(op);
    } catch (error) {
      const failure = error instanceof ServiceError ? error : new ServiceError("engine_error");
      if (!(error instanceof ServiceError)) this.deps.log.error({ err: error }, "stream operation failed");
      const about = "accountId" in op ? { account_id: op.accountId } : { channel: "tickers" };
      this.sendJson({ op: "error", ...op.echo, ...(op.op === "ping" ? {} : about), ...failure.body() });
    }
  }

  /** An account event: sent now, or held while an operation on the account runs. */
  private deliverEvent(accountId: string, text: string): void {
    if (!this.lanes.busy(accountId)) {
      this.sendText(text);
      return;
    }
    if (this.closed) return;
    const held = this.heldEvents.get(accountId);
    if (held === undefined) this.heldEvents.set(accountId, [text]);
    else held.push(text);
    this.held += Buffer.byteLength(text);
    this.cutIfTooSlow();
  }

  /** Sends the held events of every account no operation runs on (an operation just ended). */
  private releaseEvents(): void {
    if (this.heldEvents.size === 0) return;
    for (const [accountId, texts] of this.heldEvents) {
      if (this.lanes.busy(accountId)) continue;
      this.heldEvents.delete(accountId);
      for (const text of texts) {
        this.held -= Buffer.byteLength(text);
        this.sendText(text);
      }
    }
  }

  /** Leaves every feed (the socket closed). */
  close(): void {
    this.closed = true;
    this.heldEvents.clear();
    this.held = 0;
    for (const subscription of this.accounts.values()) {
      subscription.sequencer?.stop();
      subscription.leave();
    }
    this.accounts.clear();
    this.leaveTickers?.();
    this.leaveTickers = undefined;
  }

  private async run(op: Op): Promise<void> {
    if (op.op === "ping") {
      this.sendJson({ op: "pong", ...op.echo });
      return;
    }
    if (op.op === "trade") return;
    const wait = await this.deps.charge(this.caller.keyId);
    if (wait !== undefined) {
      throw new ServiceError("rate_limited", { retry_after_ms: wait });
    }
    if (op.op === "subscribe" && op.channel === "account") await this.subscribeAccount(op);
    else if (op.op === "unsubscribe" && op.channel === "account") this.unsubscribeAccount(op);
    else if (op.op === "subscribe" && op.channel === "tickers") await this.subscribeTickers(op);
    else if (op.op === "unsubscribe" && op.channel === "tickers") await this.unsubscribeTickers(op);
  }

  private async subscribeAccount(op: Extract<Op, { channel: "account"; op: "subscribe" }>): Promise<void> {
    const accountId = op.accountId;
    if (this.accounts.has(accountId)) throw new ServiceError("conflict", { reason: "already_subscribed" });
    if (this.accounts.size >= this.deps.maxAccounts) {
      throw new ServiceError("conflict", { reason: "too_many_subscriptions", limit: this.deps.maxAccounts });
    }
    const subscription: Subscription = { sequencer: undefined, leave: () => undefined };
    this.accounts.set(accountId, subscription);
    const { userId, keyId } = this.caller;
    let joined;
    try {
      joined = await this.deps.feeds.join(
        userId,
        accountId,
        (event) => subscription.sequencer?.live(event),
        (error) => {
          this.dropAccount(accountId, subscription, error, op.echo);
        },
      );
    } catch (error) {
      if (this.accounts.get(accountId) === subscription) this.accounts.delete(accountId);
      throw error;
    }
    if (this.closed || this.accounts.get(accountId) !== subscription) {
      joined.leave();
      return;
    }
    subscription.leave = () => {
      joined.leave();
    };
    const after = op.after ?? joined.last;
    subscription.sequencer = new Sequencer<WebhookEvent__Output>({
      after,
      fetch: (from) => this.deps.listEvents(userId, accountId, from),
      deliver: (event) => {
        this.deliverEvent(accountId, envelopeText(event, keyId));
      },
      fail: (error) => {
        this.dropAccount(accountId, subscription, error, op.echo);
      },
      maxHeld: MAX_HELD,
    });
    this.sendJson({ op: "subscribed", ...op.echo, account_id: accountId, after });
    // Nothing to read when it starts where the feed is: every later event comes live.
    if (after < joined.last) subscription.sequencer.start();
  }

  /** The subscription ended on an error (its feed or its catch-up read failed): the client is told. */
  private dropAccount(accountId: string, subscription: Subscription, error: unknown, echo: object): void {
    if (this.accounts.get(accountId) !== subscription) return;
    this.accounts.delete(accountId);
    subscription.sequencer?.stop();
    subscription.leave();
    const failure = error instanceof ServiceError ? error : new ServiceError("engine_unavailable");
    this.sendJson({
      op: "error",
      ...echo,
      account_id: accountId,
      after: subscription.sequencer?.last,
      ...failure.body(),
    });
  }

  private unsubscribeAccount(op: Extract<Op, { channel: "account"; op: "unsubscribe" }>): void {
    const subscription = this.accounts.get(op.accountId);
    if (subscription === undefined) throw new ServiceError("not_found");
    this.accounts.delete(op.accountId);
    subscription.sequencer?.stop();
    subscription.leave();
    this.sendJson({ op: "unsubscribed", ...op.echo, account_id: op.accountId });
  }

  private async symbolsOf(inputs: readonly string[]): Promise<string[]> {
    const symbols = await Promise.all(inputs.map((input) => this.deps.symbolOf(input)));
    const issues = symbols.flatMap((symbol, i) =>
      symbol === undefined ? [{ path: `symbols.${i}`, message: "unknown symbol" }] : [],
    );
    if (issues.length > 0) throw ServiceError.invalid(issues);
    return symbols as string[];
  }

  private async subscribeTickers(op: Extract<Op, { channel: "tickers"; op: "subscribe" }>): Promise<void> {
    const symbols = await this.symbolsOf(op.symbols);
    if (this.closed) return;
    if (op.symbols.length === 0) this.allSymbols = true;
    for (const symbol of symbols) this.symbols.add(symbol);
    this.leaveTickers ??= this.deps.tickers.join((ticker) => {
      if (this.allSymbols || this.symbols.has(ticker.symbol)) this.sendTicker(ticker);
    });
    this.sendJson({ op: "subscribed", ...op.echo, channel: "tickers", symbols: this.tickerSymbols() });
    // The latest ticker of each symbol asked for now, then every change.
    for (const symbol of op.symbols.length === 0 ? [...this.deps.tickers.latest.keys()] : symbols) {
      const ticker = this.deps.tickers.latest.get(symbol);
      if (ticker !== undefined) this.sendTicker(ticker);
    }
  }

  private async unsubscribeTickers(op: Extract<Op, { channel: "tickers"; op: "unsubscribe" }>): Promise<void> {
    const symbols = await this.symbolsOf(op.symbols);
    if (this.leaveTickers === undefined) throw new ServiceError("not_found");
    if (op.symbols.length === 0) {
      this.allSymbols = false;
      this.symbols.clear();
    } else for (const symbol of symbols) this.symbols.delete(symbol);
    if (!this.allSymbols && this.symbols.size === 0) {
      this.leaveTickers();
      this.leaveTickers = undefined;
    }
    this.sendJson({ op: "unsubscribed", ...op.echo, channel: "tickers", symbols: this.tickerSymbols() });
  }

  /** The tickers subscription: `["*"]` for every symbol, else its symbols in order. */
  private tickerSymbols(): string[] {
    return this.allSymbols ? ["*"] : [...this.symbols].sort();
  }

  private sendTicker(ticker: Ticker__Output): void {
    this.sendJson({ channel: "tickers", type: "ticker", data: tickerJson(ticker) });
  }

  private sendJson(message: object): void {
    this.sendText(JSON.stringify(message));
  }

  /** Sends, then cuts the socket off when it holds more than the bound unsent (a consumer that does not read). */
  private sendText(text: string): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(text);
    this.cutIfTooSlow();
  }

  private cutIfTooSlow(): void {
    if (this.closed || this.buffered <= this.deps.maxBufferedBytes) return;
    this.deps.log.warn({ keyId: this.caller.keyId, buffered: this.buffered }, "stream consumer too slow; closing");
    this.close();
    this.socket.close(CLOSE.slowConsumer, "slow consumer: too many unread bytes");
    // A consumer that does not read does not answer the close handshake either.
    const socket = this.socket;
    setTimeout(() => {
      socket.terminate();
    }, 1_000).unref();
  }
}
