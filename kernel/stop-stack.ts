// Composing a process from parts that each start and stop themselves: every part, once started, pushes how to
// stop it; stopping runs those last in, first out (a part stops before what it was built on). A start that
// fails stops what already started, the same way, and then fails.

/** How to stop one started part. */
export type Stop = () => void | Promise<void>;

export class StopStack {
  private readonly stops: Stop[] = [];
  private stopping: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;

  /**
   * Pushes how to stop a part that has started. Once stopping has begun, the part is stopped right after the
   * ones already being stopped, and a `stop()` called after this push waits for it too.
   */
  push(stop: Stop): void {
    if (this.stopping === undefined) this.stops.push(stop);
    else this.stopping = this.stopping.then(() => this.runOne(stop));
  }

  /**
   * Stops every pushed part, last first, each once, waiting for each before the next. One that throws does not
   * keep the others from stopping: once all ran, the first failure is thrown. Every call answers the same.
   */
  stop(): Promise<void> {
    if (this.stopping === undefined) {
      this.stopping = (async () => {
        for (let stop = this.stops.pop(); stop !== undefined; stop = this.stops.pop()) await this.runOne(stop);
      })();
    }
    return this.stopping.then(() => {
      if (this.failure !== undefined) throw this.failure.error;
    });
  }

  private async runOne(stop: Stop): Promise<void> {
    try {
      await stop();
    } catch (error) {
      this.failure ??= { error };
    }
  }
}

/**
 * Runs `start` with a fresh stack. If it throws, the parts it pushed are stopped (last first) and its error is
 * thrown; a failure to stop them then is left out (the start's error is the one that says what went wrong).
 */
export async function startParts<T>(
  start: (stack: StopStack) => Promise<T>,
): Promise<{ started: T; stop: () => Promise<void> }> {
  const stack = new StopStack();
  try {
    const started = await start(stack);
    return { started, stop: () => stack.stop() };
  } catch (error) {
    await stack.stop().catch(() => undefined);
    throw error;
  }
}
