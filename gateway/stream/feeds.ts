// The gateway's upstreams of the live stream (docs/streaming.md): one engine WatchAccount per (user, account),
// shared by every socket subscribed to it, and one WatchTickers shared by every tickers subscription. Each
// keeps the last sequence (or price) it passed on and, when the engine stream breaks (an engine restart, a
// hand-over or take-over of the partition), reopens it after a short backoff from that sequence, on each target
// of the engine in turn: the sockets see a pause, never a gap or a repeat (docs/scale-out.md, "Hand-over").
import { status as grpcStatus, type StatusObject } from "@grpc/grpc-js";
import type * as grpc from "@grpc/grpc-js";
import { fromGrpcError, ServiceError } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import type { Ticker__Output } from "../../proto/gen/engine/v1/Ticker.js";
import type { WatchAccountReply__Output } from "../../proto/gen/engine/v1/WatchAccountReply.js";
import type { WatchAccountRequest } from "../../proto/gen/engine/v1/WatchAccountRequest.js";
import type { WebhookEvent__Output } from "../../proto/gen/engine/v1/WebhookEvent.js";

/** Opens the engine's server streams (engineStreams below). */
export interface EngineStreams {
  /**
   * The targets of the engine owning the account (its ENGINE_GRPC_TARGETS entry): how many, and the one to try
   * first (the one that served that engine last).
   */
  accountTargets(accountId: string): { count: number; first: number };
  /** WatchAccount on target `target` (0-based, modulo `count`) of the account's engine. */
  watchAccount(request: WatchAccountRequest, target: number): grpc.ClientReadableStream<WatchAccountReply__Output>;
  /** On engine target `attempt` modulo every target: a reopen tries the next one. */
  watchTickers(attempt: number): grpc.ClientReadableStream<Ticker__Output>;
}

export type EventListener = (event: WebhookEvent__Output) => void;

/** Waits before reopening a broken stream, by rounds over the targets of its engine. */
const BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000];

/** Longest wait for an engine stream's first reply on one target: past it the next target is tried. */
export const READY_TIMEOUT_MS = 10_000;

/**
 * Longest pause of a serving account feed whose engine stream cannot be reopened on any target: past it the
 * subscribers are told engine_unavailable with the last sequence they got (docs/streaming.md).
 */
export const RESUME_LIMIT_MS = 60_000;

/** Registry codes after which reopening cannot help: the subscribers are told and the feed ends. */
const FINAL_CODES = new Set(["not_found", "unauthorized", "invalid_payload", "permission_denied"]);

/**
 * One engine WatchAccount shared by the sockets subscribed to the account. A stream that ends or breaks (its
 * engine stops, hands its partitions over, or dies) is reopened after the last sequence passed on, on each
 * target of the account's engine in turn (the one serving the partition now answers), so the subscribers see
 * a pause, then the next event: nothing lost, nothing twice.
 */
class AccountFeed {
  readonly listeners = new Map<EventListener, (error: ServiceError) => void>();
  /** The highest sequence passed on (the engine's starting point until the first event). */
  last = 0;
  readonly ready: Promise<void>;
  private call: grpc.ClientReadableStream<WatchAccountReply__Output> | undefined;
  private closed = false;
  /** Opens that failed in a row (reset by an engine stream's first reply). */
  private failures = 0;
  /** The target the stream is (or will be) open on. */
  private target: number;
  private readonly targets: number;
  /** The wait for the open stream's first reply, or before the next open. */
  private timer: NodeJS.Timeout | undefined;
  /** While paused (a serving feed whose stream broke): ends the feed at RESUME_LIMIT_MS. */
  private giveUp: NodeJS.Timeout | undefined;
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
    const { count, first } = streams.accountTargets(request.account_id);
    this.targets = Math.max(1, count);
    this.target = first;
    this.open();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.giveUp);
    this.call?.cancel();
  }

  /** Opens the engine stream on the current target, after the last sequence once serving. */
  private open(): void {
    const after = this.isReady ? { after: this.last } : {};
    const call = this.streams.watchAccount({ ...this.request, ...after }, this.target);
    this.call = call;
    this.timer = setTimeout(() => {
      if (call !== this.call || this.closed) return;
      this.failed(new ServiceError("engine_unavailable", {}, "the engine did not start the account stream in time"));
      call.cancel(); // after `failed` forgot it: its cancellation is not a second failure
    }, READY_TIMEOUT_MS);
    this.timer.unref();
    call.on("data", (reply: WatchAccountReply__Output) => {
      if (this.closed || call !== this.call) return;
      const event = reply.event;
      if (event === null) {
        this.started(reply.after);
        return;
      }
      if (event.sequence <= this.last) return;
      this.last = event.sequence;
      for (const listener of this.listeners.keys()) listener(event);
    });
    call.on("error", (error: unknown) => {
      if (this.closed || call !== this.call) return;
      this.failed(fromGrpcError(error));
    });
    // An account stream has no end of its own: one the engine ended cleanly is reopened like a broken one.
    call.on("status", (status: StatusObject) => {
      if (this.closed || call !== this.call || status.code !== grpcStatus.OK) return;
      this.failed(new ServiceError("engine_unavailable", {}, "the engine ended the account stream"));
    });
  }

  /** The engine stream's first reply: it serves from `after` (the feed's own last once serving). */
  private started(after: number): void {
    clearTimeout(this.timer);
    clearTimeout(this.giveUp);
    this.giveUp = undefined;
    if (this.failures > 0 && this.isReady)
      this.log.info({ accountId: this.request.account_id, target: this.target }, "account stream resumed");
    this.failures = 0;
    if (this.isReady) return;
    this.last = after;
    this.isReady = true;
    this.markReady();
  }

  /**
   * The stream on the current target failed or ended. Before serving, each target is tried once; a serving
   * feed pauses and tries them in turn (a pause after each round) until one serves or RESUME_LIMIT_MS passed.
   */
  private failed(failure: ServiceError): void {
    clearTimeout(this.timer);
    this.call = undefined;
    if (FINAL_CODES.has(failure.code)) {
      this.end(failure);
      return;
    }
    this.failures++;
    this.target = (this.target + 1) % this.targets;
    if (!this.isReady) {
      if (this.failures >= this.targets) this.end(failure);
      else this.open();
      return;
    }
    this.giveUp ??= setTimeout(() => {
      const call = this.call;
      this.end(new ServiceError("engine_unavailable", {}, "the account stream could not be resumed"));
      call?.cancel();
    }, RESUME_LIMIT_MS);
    this.giveUp.unref();
    const round = Math.floor((this.failures - 1) / this.targets);
    const delay = BACKOFF_MS[Math.min(round, BACKOFF_MS.length - 1)] ?? 5_000;
    this.log.warn(
      { err: failure.message, accountId: this.request.account_id, target: this.target, delay },
      "account stream reopens",
    );
    this.timer = setTimeout(() => {
      if (!this.closed) this.open();
    }, delay);
    this.timer.unref();
  }

  /** The feed cannot go on: every subscriber is told, and it is forgotten. */
  private end(failure: ServiceError): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.giveUp);
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

/** The engine streams over the gateway's engine clients: accounts to a target of their partition's owner. */
export function engineStreams(
  engines: {
    /** Engine k's targets (ENGINE_GRPC_TARGETS entry k). */
    readonly targets: readonly (readonly { client: grpc.Client }[])[];
    engineOfAccount(accountId: string): number;
    /** The target of engine k that served it last. */
    servingTarget(index: number): number;
  },
  definitions: {
    WatchAccount: grpc.MethodDefinition<WatchAccountRequest, WatchAccountReply__Output>;
    WatchTickers: grpc.MethodDefinition<{ symbols?: string[] }, Ticker__Output>;
  },
  metadata: () => grpc.Metadata,
): EngineStreams {
  const targetsOf = (accountId: string): readonly { client: grpc.Client }[] =>
    engines.targets[engines.engineOfAccount(accountId)] ?? [];
  const every = engines.targets.flat();
  const at = <T>(list: readonly T[], n: number): T => {
    const item = list[n % list.length];
    if (item === undefined) throw new Error("no engine");
    return item;
  };
  return {
    accountTargets: (accountId) => {
      const index = engines.engineOfAccount(accountId);
      return { count: targetsOf(accountId).length, first: engines.servingTarget(index) };
    },
    watchAccount: (request, target) => {
      const def = definitions.WatchAccount;
      return at(targetsOf(request.account_id ?? ""), target).client.makeServerStreamRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        request,
        metadata(),
      );
    },
    watchTickers: (attempt) => {
      const def = definitions.WatchTickers;
      return at(every, attempt).client.makeServerStreamRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        { symbols: [] },
        metadata(),
      );
    },
  };
}
