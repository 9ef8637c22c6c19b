// The socket session of `TradingClient.connect()`: trading operations on the socket of `GET /v1/stream`
// (docs/streaming.md, docs/client.md "Socket session") with the results, errors and retry rules of the REST
// methods, and account events that resume exactly across reconnects. Operations are pipelined: each attempt is sent with an `id` the session mints and its answer is paired by it,
// whatever the order answers come in. An answer is judged by the REST rules (Transport.retryOf, with no
// headers): a success is the method's result (client/src/calls.ts builds both), 429 and the 503s are sent again
// after their wait, anything else is its `ApiError`. A lost socket is reconnected (the backoff before each
// dial, a refused upgrade judged like an answer); on the new socket the session first subscribes each account
// again with `after` its last `sequence`, then sends again, in the order first sent, every operation that had
// no answer and is idempotent (a placement keeps the `client_id` minted for its call, so it cannot place twice);
// one that is not safe to repeat fails with a `NetworkError` instead. An attempt without an answer after the
// transport's `timeoutMs` takes the socket as lost. The credentials stay in the closure that opens sockets.
import type WebSocket from "ws";
import { calls, type BatchResult, type Reply, type TradingCall } from "./calls.js";
import { ApiError, NetworkError, SessionClosedError, ThrottledError } from "./errors.js";
import type { Placement, TestResult } from "./results.js";
import { answerOf, connect, parseMessage, type Message } from "./socket.js";
import { Subscription } from "./subscription.js";
import type { Transport } from "./transport.js";
import type {
  AmendOrderRequest,
  CancelAfter,
  CanceledOrderList,
  ClosePositionRequest,
  FlattenResponse,
  Order,
  PlaceOrderRequest,
  WebhookEnvelope,
} from "./types.js";

export interface SessionOptions {
  /**
   * Operations sent and not yet answered, at most (default 64: what one key may have in flight on a gateway,
   * `ADMISSION_PER_KEY`; the gateway lets 256 wait per socket, but a key's operations past its admission bound
   * queue there and may be shed under load); more wait in the session for their turn.
   */
  maxInFlight?: number;
}

/** One call of the session, across its attempts. */
interface Pending {
  /** The message of the next attempt, given its `id`. */
  frame: (id: number) => string;
  op: string;
  idempotent: boolean;
  attempts: number;
  /** The `id` of the attempt in flight (0 when none). */
  id: number;
  timer?: NodeJS.Timeout;
  lastAnswer?: ApiError;
  settled: boolean;
  resolve: (reply: Reply<unknown>) => void;
  reject: (error: unknown) => void;
}

export class TradingSession {
  private readonly open: () => WebSocket;
  private readonly transport: Transport;
  private readonly maxInFlight: number;
  private ws: WebSocket | undefined;
  private nextId = 1;
  private readonly inFlight = new Map<number, Pending>();
  private queue: Pending[] = [];
  private readonly unsettled = new Set<Pending>();
  private readonly subscriptions = new Map<string, Subscription>();
  /** Subscriptions whose `subscribe` waits for its answer. */
  private readonly subscribing = new Set<Subscription>();
  /** Set once the session has ended (closed by the caller, or failed for good). */
  private ended: Error | undefined;
  private closedBy: Promise<void> = Promise.resolve();

  private constructor(open: () => WebSocket, transport: Transport, options: SessionOptions) {
    this.open = open;
    this.transport = transport;
    this.maxInFlight = options.maxInFlight ?? 64;
  }

  /** A session on its first socket; rejects as the upgrade was answered when it is refused for good. */
  static async open(open: () => WebSocket, transport: Transport, options: SessionOptions): Promise<TradingSession> {
    const session = new TradingSession(open, transport, options);
    session.attach(await connect(open, transport, false, () => session.ended));
    return session;
  }

  placeOrder(order: PlaceOrderRequest): Promise<Placement> {
    return this.run(calls.placeOrder(order));
  }

  closePosition(request: ClosePositionRequest): Promise<Placement> {
    return this.run(calls.closePosition(request));
  }

  testOrder(order: PlaceOrderRequest): Promise<TestResult> {
    return this.run(calls.testOrder(order));
  }

  amendOrder(orderId: string, changes: AmendOrderRequest): Promise<Order> {
    return this.run(calls.amendOrder(orderId, changes));
  }

  cancelOrder(orderId: string): Promise<Order> {
    return this.run(calls.cancelOrder(orderId));
  }

  setCancelAfter(accountId: string, timeoutMs: number): Promise<CancelAfter> {
    return this.run(calls.setCancelAfter(accountId, timeoutMs));
  }

  cancelAllOrders(accountId: string, symbol?: string): Promise<CanceledOrderList["data"]> {
    return this.run(calls.cancelAllOrders(accountId, symbol));
  }

  flatten(accountId: string): Promise<FlattenResponse> {
    return this.run(calls.flatten(accountId));
  }

  placeOrders(orders: PlaceOrderRequest[]): Promise<BatchResult> {
    return this.run(calls.placeOrders(orders));
  }

  /**
   * One operation with the session's retry rules: `{"op":op,"id":…,"args":args}`, answered by its success
   * (status, body, `replayed`) or its `ApiError`. `idempotent: false` for one that must not be sent again once
   * it may have run (it is then sent again only after a 429 or a 503 that refused it unhandled).
   */
  request<B>(op: string, args: Record<string, unknown>, options: { idempotent: boolean }): Promise<Reply<B>> {
    const json = JSON.stringify(args);
    const opJson = JSON.stringify(op);
    const frame = (id: number): string => `{"op":${opJson},"id":${id},"args":${json}}`;
    return this.call(op, frame, options.idempotent) as Promise<Reply<B>>;
  }

  /**
   * The account's events (webhook envelopes) after `after` (default: from its next event), once the gateway
   * acknowledged the subscription; an unknown account or another user's is `ApiError` 404. Iterate it with
   * `for await`; leaving the loop or `close()` unsubscribes. Across reconnects it subscribes again with `after`
   * its last `sequence`: nothing is lost or repeated. Events wait in the session until read.
   */
  async subscribe(accountId: string, options: { after?: number } = {}): Promise<Subscription> {
    if (this.subscriptions.has(accountId)) {
      throw new ApiError(409, { error: "conflict", reason: "already_subscribed", account_id: accountId }, null, 0);
    }
    const subscription = new Subscription(accountId, options.after, (s) => {
      this.unsubscribe(s);
    });
    this.subscriptions.set(accountId, subscription);
    try {
      await this.subscribeOn(subscription);
    } catch (error) {
      this.subscriptions.delete(accountId);
      subscription.end(asError(error));
      throw error;
    }
    return subscription;
  }

  /**
   * Ends the session: calls without an answer fail with `SessionClosedError`, subscriptions end (their loops
   * finish), and the socket closes (1000). Resolves once it has closed.
   */
  close(): Promise<void> {
    if (this.ended === undefined) this.end(new SessionClosedError(null, "closed by the caller"));
    return this.closedBy;
  }

  private async run<R, B>(call: TradingCall<R, B>): Promise<R> {
    const reply = await this.request<B>(call.op, call.args, { idempotent: call.rest.idempotent });
    return call.result(reply);
  }

  /** Sends `subscribe` for the subscription with its `after` as it stands at each attempt. */
  private async subscribeOn(subscription: Subscription, first = false): Promise<void> {
    const frame = (id: number): string => {
      const after = subscription.last;
      return JSON.stringify({
        op: "subscribe",
        id,
        account_id: subscription.accountId,
        ...(after === undefined ? {} : { after }),
      });
    };
    this.subscribing.add(subscription);
    try {
      const reply = await this.call("subscribe", frame, true, first);
      subscription.started((reply.body as Message).after);
    } finally {
      this.subscribing.delete(subscription);
    }
  }

  private unsubscribe(subscription: Subscription): void {
    if (this.subscriptions.get(subscription.accountId) !== subscription) return;
    this.subscriptions.delete(subscription.accountId);
    const frame = JSON.stringify({ op: "unsubscribe", account_id: subscription.accountId });
    if (this.ws?.readyState === 1) this.ws.send(frame);
  }

  /** Queues a call (`first`: ahead of every call waiting) and sends what it can. */
  private call(op: string, frame: (id: number) => string, idempotent: boolean, first = false): Promise<Reply<unknown>> {
    if (this.ended !== undefined) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      const pending: Pending = { frame, op, idempotent, attempts: 0, id: 0, settled: false, resolve, reject };
      this.unsettled.add(pending);
      if (first) this.queue.unshift(pending);
      else this.queue.push(pending);
      this.pump();
    });
  }

  private settle(pending: Pending, outcome: { reply: Reply<unknown> } | { error: unknown }): void {
    if (pending.settled) return;
    pending.settled = true;
    this.unsettled.delete(pending);
    if ("reply" in outcome) pending.resolve(outcome.reply);
    else pending.reject(outcome.error);
  }

  /** Sends what waits, in order, while the socket is open and fewer than `maxInFlight` are unanswered. */
  private pump(): void {
    while (this.ws?.readyState === 1 && this.inFlight.size < this.maxInFlight) {
      const pending = this.queue.shift();
      if (pending === undefined) return;
      if (!pending.settled) this.send(pending, this.ws);
    }
  }

  private send(pending: Pending, ws: WebSocket): void {
    pending.attempts++;
    const throttle = this.transport.throttle;
    if (throttle !== undefined && !throttle.admit()) {
      if (pending.attempts >= this.transport.maxAttempts) {
        this.settle(pending, { error: new ThrottledError(pending.attempts, pending.lastAnswer) });
      } else {
        this.later(pending, this.transport.backoff(pending.attempts), "throttled");
      }
      return;
    }
    pending.id = this.nextId++;
    this.inFlight.set(pending.id, pending);
    pending.timer = setTimeout(() => {
      // No answer in time: the socket is taken as lost, and what it carried is judged as on a lost socket.
      if (this.inFlight.get(pending.id) === pending) ws.terminate();
    }, this.transport.timeoutMs);
    pending.timer.unref();
    ws.send(pending.frame(pending.id));
  }

  /** Waits `delayMs` (announced to `onRetry`), then queues the call again. */
  private later(pending: Pending, delayMs: number, reason: string): void {
    void this.transport.wait({ method: "WS", path: pending.op }, pending.attempts, delayMs, reason).then(() => {
      if (pending.settled) return;
      this.queue.push(pending);
      this.pump();
    });
  }

  private onMessage(text: string): void {
    const message = parseMessage(text);
    if (message === undefined) return;
    if (message.op === undefined && typeof message.sequence === "number" && typeof message.account_id === "string") {
      this.subscriptions.get(message.account_id)?.deliver(message as unknown as WebhookEnvelope);
      return;
    }
    const pending = typeof message.id === "number" ? this.inFlight.get(message.id) : undefined;
    if (pending !== undefined) {
      this.inFlight.delete(pending.id);
      clearTimeout(pending.timer);
      this.answered(pending, message);
      this.pump();
    } else if (message.op === "error" && message.id === undefined && typeof message.account_id === "string") {
      this.resubscribeLater(message.account_id, message.after);
    }
  }

  /** A subscription the gateway ended on its own (its catch-up read failed): subscribed again after a backoff. */
  private resubscribeLater(accountId: string, after: unknown): void {
    const subscription = this.subscriptions.get(accountId);
    if (subscription === undefined) return;
    subscription.started(after);
    void this.transport
      .wait({ method: "WS", path: "/v1/stream" }, 1, this.transport.backoff(1), "subscription ended")
      .then(() => {
        if (this.subscriptions.get(accountId) === subscription) this.resubscribe(subscription);
      });
  }

  private resubscribe(subscription: Subscription, first = false): void {
    this.subscribeOn(subscription, first).catch((error: unknown) => {
      if (this.subscriptions.get(subscription.accountId) === subscription) {
        this.subscriptions.delete(subscription.accountId);
      }
      subscription.end(asError(error));
    });
  }

  /** An answer: the call's success, its wait and another attempt, or its `ApiError`. */
  private answered(pending: Pending, message: Message): void {
    const { status, body } = answerOf(message);
    const overloaded = status === 503 && body.error === "overloaded";
    this.transport.throttle?.record(!overloaded);
    if (status >= 200 && status < 300) {
      const reply = { status, body, replayed: message.replayed === true, attempts: pending.attempts };
      this.settle(pending, { reply });
      return;
    }
    pending.lastAnswer = new ApiError(status, body, null, pending.attempts);
    const retry =
      pending.attempts < this.transport.maxAttempts
        ? this.transport.retryOf(status, body, new Headers(), pending.idempotent, pending.attempts)
        : undefined;
    if (retry === undefined) this.settle(pending, { error: pending.lastAnswer });
    else this.later(pending, retry.delayMs, retry.reason);
  }

  private attach(ws: WebSocket): void {
    this.ws = ws;
    ws.on("error", () => undefined);
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      if (!isBinary && this.ws === ws) this.onMessage(data.toString("utf8"));
    });
    this.closedBy = new Promise((resolve) => {
      ws.once("close", (code: number) => {
        if (this.ws === ws) this.lost(code);
        resolve();
      });
    });
    this.pump();
  }

  /** The socket closed under the session. */
  private lost(code: number): void {
    this.ws = undefined;
    if (this.ended !== undefined) return;
    if (code === 4001) {
      this.end(new SessionClosedError(4001, "the key was revoked or expired"));
      return;
    }
    const again: Pending[] = [];
    for (const pending of [...this.inFlight.values()].sort((a, b) => a.id - b.id)) {
      clearTimeout(pending.timer);
      if (!pending.idempotent) {
        const cause = new Error(
          `the socket closed before ${pending.op} was answered: it may have run, so it is not sent again`,
        );
        this.settle(pending, { error: new NetworkError(cause, pending.attempts) });
      } else if (pending.attempts >= this.transport.maxAttempts) {
        this.settle(pending, {
          error: new NetworkError(new Error("the socket closed before the answer"), pending.attempts),
        });
      } else {
        again.push(pending);
      }
    }
    this.inFlight.clear();
    this.queue = [...again, ...this.queue];
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    let ws: WebSocket;
    try {
      ws = await connect(this.open, this.transport, true, () => this.ended);
    } catch (error) {
      this.end(asError(error));
      return;
    }
    if (this.ended !== undefined) {
      ws.close(1000);
      return;
    }
    // Subscriptions first, so the events of an order sent again reach them; one whose `subscribe` is still
    // waiting for its answer is sent again with the calls.
    for (const subscription of this.subscriptions.values()) {
      if (!this.subscribing.has(subscription)) this.resubscribe(subscription, true);
    }
    this.attach(ws);
  }

  /** Fails every call and subscription with `error`, and closes the socket. */
  private end(error: Error): void {
    this.ended = error;
    for (const pending of [...this.unsettled]) {
      clearTimeout(pending.timer);
      this.settle(pending, { error });
    }
    this.inFlight.clear();
    this.queue = [];
    const byCaller = error instanceof SessionClosedError && error.closeCode === null;
    for (const subscription of this.subscriptions.values()) subscription.end(byCaller ? undefined : error);
    this.subscriptions.clear();
    this.ws?.close(1000);
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
