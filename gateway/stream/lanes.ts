// The order in which one socket's operations run (docs/streaming.md, "Pipelining"): operations on one account
// run one after another in the order they came; operations on different accounts overlap. An operation that
// names no account the socket can tell (a cancel of an order it never saw placed, a ping, a message that is not
// an operation) is a barrier: it runs once everything before it is done, and everything after it waits for it.
// `busy` tells whether an operation on an account is running, so the account's events can be held until its
// answer is sent (gateway/stream/session.ts): an event its own operation caused never overtakes the answer.

/** What one operation touches: the accounts it names (lower-case UUIDs), or every account (a barrier). */
export type Reach = readonly string[] | "all";

export class Lanes {
  /** The last operation of each account, ended or not: the next one on it waits for it. */
  private readonly tails = new Map<string, Promise<void>>();
  /** The last barrier: every later operation waits for it. */
  private barrier: Promise<void> = Promise.resolve();
  /** Operations running, per account; barriers apart. */
  private readonly running = new Map<string, number>();
  private runningBarriers = 0;

  /** Whether an operation on `account` (or a barrier) is running: the account's events wait for its answer. */
  busy(account: string): boolean {
    return this.runningBarriers > 0 || (this.running.get(account) ?? 0) > 0;
  }

  /**
   * Runs `task` once every earlier operation it must follow has ended; `ended` is called once it ends (whether
   * it threw or not), before any operation waiting for it starts. Resolves when it has ended.
   */
  run(reach: Reach, task: () => Promise<void>, ended: () => void): Promise<void> {
    if (reach === "all") return this.runBarrier(task, ended);
    const accounts = [...new Set(reach)];
    const before = [this.barrier, ...accounts.flatMap((a) => this.tails.get(a) ?? [])];
    const start = (): Promise<void> => {
      for (const account of accounts) this.running.set(account, (this.running.get(account) ?? 0) + 1);
      return task();
    };
    const done = after(before, start).finally(() => {
      for (const account of accounts) {
        const left = (this.running.get(account) ?? 1) - 1;
        if (left > 0) this.running.set(account, left);
        else this.running.delete(account);
        if (this.tails.get(account) === done) this.tails.delete(account);
      }
      ended();
    });
    for (const account of accounts) this.tails.set(account, done);
    return done;
  }

  private runBarrier(task: () => Promise<void>, ended: () => void): Promise<void> {
    const before = [this.barrier, ...this.tails.values()];
    // Later operations wait for the barrier, which waits for every tail: the tails are no longer needed.
    this.tails.clear();
    const start = (): Promise<void> => {
      this.runningBarriers++;
      return task();
    };
    const done = after(before, start).finally(() => {
      this.runningBarriers--;
      ended();
    });
    this.barrier = done;
    return done;
  }
}

/** Runs `task` once every promise of `before` settled; a task that throws still lets the next ones run. */
async function after(before: readonly Promise<void>[], task: () => Promise<void>): Promise<void> {
  if (before.length === 1) await before[0];
  else if (before.length > 1) await Promise.all(before);
  try {
    await task();
  } catch {
    // The task answers its own failure; the lane goes on.
  }
}
