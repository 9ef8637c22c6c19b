// One account's events on a socket session (client/src/session.ts): an async iterator over the webhook
// envelopes (docs/streaming.md), in `sequence` order, each once. It keeps the last `sequence` delivered, which
// the session sends as `after` when it subscribes again on a new socket, and drops anything at or below it.
import type { WebhookEnvelope } from "./types.js";

export class Subscription implements AsyncIterableIterator<WebhookEnvelope> {
  readonly accountId: string;
  private lastSequence: number | undefined;
  private readonly buffered: WebhookEnvelope[] = [];
  private readonly waiting: {
    resolve: (result: IteratorResult<WebhookEnvelope>) => void;
    reject: (error: Error) => void;
  }[] = [];
  private ended: { error: Error | undefined } | undefined;
  private readonly onClose: (subscription: Subscription) => void;

  /** `after`: the last `sequence` the caller has (undefined: from the account's next event). */
  constructor(accountId: string, after: number | undefined, onClose: (subscription: Subscription) => void) {
    this.accountId = accountId;
    this.lastSequence = after;
    this.onClose = onClose;
  }

  /** The last `sequence` delivered, or the one the subscription started after; undefined before its ack. */
  get last(): number | undefined {
    return this.lastSequence;
  }

  get done(): boolean {
    return this.ended !== undefined;
  }

  /** The gateway's ack named where it starts (`after`), when the caller named none. */
  started(after: unknown): void {
    if (this.lastSequence === undefined && typeof after === "number") this.lastSequence = after;
  }

  /** An envelope from the socket: kept when it is past the last one, dropped otherwise. */
  deliver(envelope: WebhookEnvelope): void {
    if (this.ended !== undefined) return;
    if (this.lastSequence !== undefined && envelope.sequence <= this.lastSequence) return;
    this.lastSequence = envelope.sequence;
    const waiter = this.waiting.shift();
    if (waiter === undefined) this.buffered.push(envelope);
    else waiter.resolve({ value: envelope, done: false });
  }

  /** Ends the iteration: after what is buffered, `done` (no error) or the error thrown. */
  end(error?: Error): void {
    if (this.ended !== undefined) return;
    this.ended = { error };
    for (const waiter of this.waiting.splice(0)) {
      if (error === undefined) waiter.resolve({ value: undefined, done: true });
      else waiter.reject(error);
    }
  }

  next(): Promise<IteratorResult<WebhookEnvelope>> {
    const value = this.buffered.shift();
    if (value !== undefined) return Promise.resolve({ value, done: false });
    if (this.ended !== undefined) {
      return this.ended.error === undefined
        ? Promise.resolve({ value: undefined, done: true })
        : Promise.reject(this.ended.error);
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Leaving a `for await` loop unsubscribes. */
  return(): Promise<IteratorResult<WebhookEnvelope>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** Unsubscribes; the iteration ends after what is buffered. */
  close(): void {
    if (this.ended !== undefined) return;
    this.end();
    this.onClose(this);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<WebhookEnvelope> {
    return this;
  }
}
