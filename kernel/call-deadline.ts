// The deadline of the gRPC call a handler is serving, for the work it starts synchronously (the shard message
// it sends: engine/shard/runtime.ts). A unary call's deadline is the one grpc-js read from its grpc-timeout
// header; a call carried by a session stream brings its remaining budget in its frame (kernel/session-codec.ts).
// Both are relative budgets on the wire, turned into a time on this host's wall clock (epoch ms) on arrival, so
// clocks of different hosts never meet. Like the trace context (kernel/tracing.ts), it is set around the
// handler's synchronous part only: work started after the handler awaited something carries no deadline.

let current: number | undefined;

/**
 * A write that cannot be taken back once its caller misses the answer (a created key: its secret is shown only
 * in that answer) is decided, committed or rolled back, by its call's deadline less this; the caller's deadline
 * is this much longer than its usual one, so the answer of a decided write has this long to arrive.
 */
export const COMMIT_GRACE_MS = 1_000;

/** Runs `fn(...args)` with `deadline` (epoch ms on this host, undefined for none) as the call's deadline. */
export function withCallDeadline<A extends unknown[], R>(
  deadline: number | undefined,
  fn: (...args: A) => R,
  ...args: A
): R {
  const outer = current;
  current = deadline;
  try {
    return fn(...args);
  } finally {
    current = outer;
  }
}

/** The deadline of the call being served (epoch ms on this host), or undefined when it has none. */
export function callDeadline(): number | undefined {
  return current;
}

/** The time a relative budget ends at on this host's wall clock; undefined for none (0, negative or not finite). */
export function deadlineOfBudget(budgetMs: number, now: number = Date.now()): number | undefined {
  return Number.isFinite(budgetMs) && budgetMs > 0 ? now + budgetMs : undefined;
}
