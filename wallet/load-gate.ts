// Caps the database reads of validations the index cannot answer (keys it does not hold: typos, guesses, a
// flood of random keys). They share the wallet's pool with key writes (create, revoke) and the revocation
// poll; at most `concurrency` run at once, at most `queue` wait for a turn (each at most `waitMs`), and the
// rest are refused at once with `wallet_unavailable`, so the other connections stay free for writes.
import { ServiceError } from "../kernel/errors.js";

export interface LoadGateOptions {
  concurrency: number;
  queue: number;
  /** Longest a read waits for its turn before it is refused. */
  waitMs: number;
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

export class LoadGate {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly options: LoadGateOptions) {}

  /** Reads running now. */
  get running(): number {
    return this.active;
  }

  /** Reads waiting for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `read` when a turn is free; rejects with `wallet_unavailable` when none comes in time. */
  async run<T>(read: () => Promise<T>): Promise<T> {
    if (this.active >= this.options.concurrency) await this.turn();
    else this.active += 1;
    try {
      return await read();
    } finally {
      this.release();
    }
  }

  /** Resolves holding a turn (handed over by `release`), or rejects. */
  private turn(): Promise<void> {
    if (this.waiting.length >= this.options.queue) return Promise.reject(new ServiceError("wallet_unavailable"));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: resolve,
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(new ServiceError("wallet_unavailable"));
        }, this.options.waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next === undefined) {
      this.active -= 1;
      return;
    }
    // The turn passes straight to the next waiter: `active` is unchanged.
    clearTimeout(next.timer);
    next.start();
  }
}
