// The shard threads of a runtime (started together, stopped together) and, on a standby, their steps through
// the journal (docs/scale-out.md, "Standbys"): every `everyMs` each shard applies what the journal got since its
// last look, until `serve` makes the exact last look and the shards serve.
import type { Piscina } from "piscina";
import { ServiceError, errorText } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import type { Fence } from "../store/leases.js";
import type { CoreTypes } from "./core-contract.js";
import type { ShardHandover } from "./handover.js";

/** What a standby's shards applied in one step through the journal, over all shards. */
export interface Followed {
  accounts: number;
  events: number;
  /** The slowest shard's time (ms). */
  ms: number;
}

/** The shard threads of a runtime, started together and stopped together. */
export class ShardThreads<T extends CoreTypes> {
  constructor(
    private readonly handover: ShardHandover<T>,
    private readonly pools: readonly Piscina[],
    private readonly log: Logger,
  ) {}

  /** Waits until every shard was rebuilt from the journal; destroys the pools when one could not start. */
  async start(): Promise<void> {
    try {
      const started = this.pools.map((_, shard) =>
        this.handover.send(shard, { kind: "start", requestId: this.handover.requestId() }),
      );
      for (const s of await Promise.all(started)) {
        this.log.info(
          { shard: s.shard, threadId: s.threadId, accounts: s.accounts, events: s.events },
          "shard started",
        );
      }
    } catch (error) {
      await Promise.allSettled(this.pools.map((pool) => pool.destroy()));
      throw error;
    }
  }

  /** `stop` is queued behind everything already sent: when it answers, every earlier message was answered. */
  async stop(): Promise<void> {
    const stopped = this.pools.map((_, shard) =>
      this.handover.send(shard, { kind: "stop", requestId: this.handover.requestId() }),
    );
    (await Promise.allSettled(stopped)).forEach((result, shard) => {
      if (result.status === "rejected") {
        this.log.warn({ shard, err: errorText(result.reason) }, "shard did not stop cleanly");
      }
    });
    await Promise.allSettled(this.pools.map((pool) => pool.close()));
  }
}

/** A standby's shards following the journal (docs/scale-out.md, "Standbys"): one step every `everyMs`. */
export class Follower<T extends CoreTypes> {
  private timer: NodeJS.Timeout | undefined;
  private step: Promise<unknown> = Promise.resolve();
  private halted = false;
  private stopped = false;
  private failing = false;
  private serving: Promise<Followed> | undefined;

  constructor(
    private readonly handover: ShardHandover<T>,
    private readonly shards: number,
    private readonly log: Logger,
  ) {}

  start({ everyMs, onStep }: { everyMs: number; onStep?: (followed: Followed) => void }): void {
    const tick = (): void => {
      this.step = this.all({ kind: "follow" })
        .then((followed) => {
          onStep?.(followed);
          if (this.failing) this.log.info({}, "standby follows the journal again");
          this.failing = false;
        })
        .catch((error: unknown) => {
          // Logged once per outage; the next step reads again from the last good look.
          if (!this.failing) this.log.warn({ err: errorText(error) }, "standby: following the journal failed");
          this.failing = true;
        })
        .finally(() => {
          if (!this.halted) this.timer = setTimeout(tick, everyMs);
        });
    };
    tick();
  }

  /** No more steps; resolves once the one in flight ended. */
  async halt(): Promise<void> {
    this.halted = true;
    clearTimeout(this.timer);
    await this.step;
  }

  /** No more steps, and no `serve`: the runtime stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.halt();
  }

  serve(fence: Fence): Promise<Followed> {
    if (this.stopped) return Promise.reject(new ServiceError("engine_not_serving", {}, "engine draining"));
    this.serving ??= this.halt().then(() => this.all({ kind: "serve", fence }));
    return this.serving;
  }

  private async all(request: { kind: "follow" } | { kind: "serve"; fence: Fence }): Promise<Followed> {
    const answers = await Promise.all(
      Array.from({ length: this.shards }, (_, shard) =>
        this.handover.send<"follow" | "serve">(shard, { ...request, requestId: this.handover.requestId() }),
      ),
    );
    return answers.reduce<Followed>(
      (sum, a) => ({ accounts: sum.accounts + a.accounts, events: sum.events + a.events, ms: Math.max(sum.ms, a.ms) }),
      { accounts: 0, events: 0, ms: 0 },
    );
  }
}
