// The gateway's upstreams of the live stream (docs/streaming.md): one engine WatchAccount per (user, account),
// shared by every socket subscribed to it, and one WatchTickers shared by every tickers subscription. Each
// keeps the last sequence (or price) it passed on and, when the engine stream breaks (an engine restart, a
// partition moving), reopens it after a short backoff from that sequence: the sockets see a pause, never a gap.
import type * as grpc from "@grpc/grpc-js";
import { fromGrpcError, ServiceError } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import type { Ticker__Output } from "../../proto/gen/engine/v1/Ticker.js";
import type { WatchAccountReply__Output } from "../../proto/gen/engine/v1/WatchAccountReply.js";
import type { WatchAccountRequest } from "../../proto/gen/engine/v1/WatchAccountRequest.js";
import type { WebhookEvent__Output } from "../../proto/gen/engine/v1/WebhookEvent.js";

/** Opens the engine's server streams (gateway/stream/engine-streams.ts). */
export interface EngineStreams {
  watchAccount(request: WatchAccountRequest): grpc.ClientReadableStream<WatchAccountReply__Output>;
  /** On engine `attempt` modulo the engines: a reopen tries the next one. */
  watchTickers(attempt: number): grpc.ClientReadableStream<Ticker__Output>;
}

export type EventListener = (event: WebhookEvent__Output) => void;

const BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000];

/** Longest wait for an engine stream's first reply: past it the subscription is refused engine_unavailable. */
export const READY_TIMEOUT_MS = 10_000;

/** Registry codes after which reopening cannot help: the subscribers are told and the feed ends. */
const FINAL_CODES = new Set(["not_found", "unauthorized", "invalid_payload", "permission_denied"]);

/** One engine WatchAccount shared by the sockets subscribed to the account. */
class AccountFeed {
  readonly listeners = new Map<EventListener, (error: ServiceError) => void>();
  /** The highest sequence passed on (the engine's starting point until the first event). */
  last = 0;
  readonly ready: Promise<void>;
  private call: grpc.ClientReadableStream<WatchAccountReply__Output> | undefined;
  private closed = false;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private markReady: () => void = () => undefined;
  private refuse: (error: ServiceError) => void = () => undefined;
  private isReady = false;

  constructor(
    private readonly request: { user_id: string; account_id: string },
    private readonly streams: EngineStreams,
    private readonly gone: () => void,
    private readonly log: Logger,
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.markReady = resolve;
      this.refuse = reject;
    });
    this.open(undefined);
    this.timer = setTimeout(() => {
      if (this.isReady || this.closed) return;
      this.call?.cancel();
      this.end(new ServiceError("engine_unavailable", {}, "the engine did not start the account stream in time"));
    }, READY_TIMEOUT_MS);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.call?.cancel();
  }

  private open(after: number | undefined): void {
    const call = this.streams.watchAccount({ ...this.request, ...(after === undefined ? {} : { after }) });
    this.call = call;
    call.on("data", (reply: WatchAccountReply__Output) => {
      if (this.closed) return;
      const event = reply.event;
      if (event === null) {
        this.failures = 0;
        if (!this.isReady) {
          clearTimeout(this.timer);
          this.last = reply.after;
          this.isReady = true;
          this.markReady();
        }
        return;
      }
      if (event.sequence <= this.last) return;
      this.last = event.sequence;
      for (const listener of this.listeners.keys()) listener(event);
    });
    call.on("error", (error: unknown) => {
      if (this.closed || call !== this.call) return;
      const failure = fromGrpcError(error);
      if (!this.isReady || FINAL_CODES.has(failure.code)) {
        this.end(failure);
        return;
      }
      const delay = BACKOFF_MS[Math.min(this.failures++, BACKOFF_MS.length - 1)] ?? 5_000;
      this.log.warn({ err: failure.message, accountId: this.request.account_id, delay }, "account stream reopens");
      this.timer = setTimeout(() => {
        if (!this.closed) this.open(this.last);
      }, delay);
    });
  }

  /** The feed cannot go on: every subscriber is told, and it is forgotten. */
  private end(failure: ServiceError): void {
    this.closed = true;
    this.gone();
    // Joins still waiting get the rejection; listeners of a feed that was serving are told.
    this.refuse(failure);
    if (this.isReady) for (const fail of this.listeners.values()) fail(failure);
    this.listeners.clear();
  }
}

export interface Joined {
  /** The sequence the feed has passed on (subscribers start after it when they ask for no earlier one). */
  readonly last: number;
  leave(): void;
}

/** The account feeds of one gateway, by user and account. */
export class AccountFeeds {
  private readonly feeds = new Map<string, AccountFeed>();

  constructor(
    private readonly streams: EngineStreams,
    private readonly log: Logger,
  ) {}

  /** Open upstreams. */
  get size(): number {
    return this.feeds.size;
  }

  /**
   * Adds a listener to the user's account feed (opening it); rejects with the engine's error (not_found for
   * someone else's account). `fail` is called if the feed ends later.
   */
  async join(
    userId: string,
    accountId: string,
    listener: EventListener,
    fail: (error: ServiceError) => void,
  ): Promise<Joined> {
    const key = `${userId}|${accountId}`;
    let feed = this.feeds.get(key);
    if (feed === undefined) {
      const created: AccountFeed = new AccountFeed(
        { user_id: userId, account_id: accountId },
        this.streams,
        () => {
          if (this.feeds.get(key) === created) this.feeds.delete(key);
        },
        this.log,
      );
      feed = created;
      this.feeds.set(key, feed);
    }
    const joined = feed;
    joined.listeners.set(listener, fail);
    try {
      await joined.ready;
    } catch (error) {
      joined.listeners.delete(listener);
      throw error;
    }
    return {
      last: joined.last,
      leave: () => {
        joined.listeners.delete(listener);
        if (joined.listeners.size === 0 && this.feeds.get(key) === joined) {
          this.feeds.delete(key);
          joined.close();
        }
      },
    };
  }

  close(): void {
    for (const feed of this.feeds.values()) feed.close();
    this.feeds.clear();
  }
}

/** One engine WatchTickers (every symbol) shared by the tickers subscriptions, with each symbol's latest. */
export class TickerFeed {
  readonly latest = new Map<string, Ticker__Output>();
  private readonly listeners = new Set<(ticker: Ticker__Output) => void>();
  private call: grpc.ClientReadableStream<Ticker__Output> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  /** Opens so far: each goes to the next engine in turn (any engine has the prices). */
  private attempts = 0;

  constructor(
    private readonly streams: EngineStreams,
    private readonly log: Logger,
  ) {}

  /** Adds a listener (opening the upstream); returns how to remove it. */
  join(listener: (ticker: Ticker__Output) => void): () => void {
    this.listeners.add(listener);
    if (this.call === undefined && this.timer === undefined) this.open();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.close();
    };
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const call = this.call;
    this.call = undefined;
    call?.cancel();
  }

  private open(): void {
    this.timer = undefined;
    const call = this.streams.watchTickers(this.attempts++);
    this.call = call;
    call.on("data", (ticker: Ticker__Output) => {
      this.failures = 0;
      this.latest.set(ticker.symbol, ticker);
      for (const listener of this.listeners) listener(ticker);
    });
    call.on("error", (error: unknown) => {
      if (call !== this.call) return;
      this.call = undefined;
      const delay = BACKOFF_MS[Math.min(this.failures++, BACKOFF_MS.length - 1)] ?? 5_000;
      this.log.warn({ err: fromGrpcError(error).message, delay }, "ticker stream reopens");
      this.timer = setTimeout(() => {
        this.open();
      }, delay);
    });
  }
}

/** The engine streams over the gateway's engine clients: accounts to their partition's owner. */
export function engineStreams(
  engines: readonly { client: grpc.Client }[],
  engineOfAccount: (accountId: string) => number,
  definitions: {
    WatchAccount: grpc.MethodDefinition<WatchAccountRequest, WatchAccountReply__Output>;
    WatchTickers: grpc.MethodDefinition<{ symbols?: string[] }, Ticker__Output>;
  },
  metadata: () => grpc.Metadata,
): EngineStreams {
  const client = (index: number): grpc.Client => {
    const engine = engines[index];
    if (engine === undefined) throw new Error(`no engine ${index}`);
    return engine.client;
  };
  return {
    watchAccount: (request) => {
      const def = definitions.WatchAccount;
      return client(engineOfAccount(request.account_id ?? "")).makeServerStreamRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        request,
        metadata(),
      );
    },
    watchTickers: (attempt) => {
      const def = definitions.WatchTickers;
      return client(attempt % engines.length).makeServerStreamRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        { symbols: [] },
        metadata(),
      );
    },
  };
}
