// The hand-over of requests from the main thread to the shard threads. The requests to a shard wait in its
// queue until the end of the event-loop turn (`setImmediate`, after the turn's I/O callbacks: gRPC delivers
// many calls per socket read, each reaching us after a few promise hops, which a microtask flush would hand
// over one by one), then go as one task and come back as one result: one structured clone each way per turn,
// not per request. Every request goes through the queue (start, market and stop too), so a shard sees them in
// the order they were made.
import type { Piscina } from "piscina";
import { DeadlineExceeded, ServiceError, errorText } from "../../kernel/errors.js";
import type { Logger } from "../../kernel/log.js";
import type { CoreTypes } from "./core-contract.js";
import type { ResponseKindOf, ShardRequest, ShardResponse, ShardTask, ShardTaskResult } from "./protocol.js";

/** A request waiting in its shard's queue, then for the answer of the task that carried it. */
interface Waiting<T extends CoreTypes> {
  request: ShardRequest<T>;
  resolve: (response: ShardResponse<T>) => void;
  reject: (error: unknown) => void;
  /** performance.now() at the call (0 when request latency is not observed). */
  started: number;
}

export interface HandoverOptions {
  /** One piscina pool of one thread per shard, by shard index. */
  pools: readonly Piscina[];
  log: Logger;
  /** Seconds from a request's call to its answer; not measured when absent. */
  requestLatency: ((shard: number, kind: ShardRequest["kind"], seconds: number) => void) | undefined;
  /** One task handed to a shard with the number of requests it carries. */
  handover: ((shard: number, requests: number) => void) | undefined;
}

export class ShardHandover<T extends CoreTypes> {
  /** Per shard, the requests of this event-loop turn, in call order. */
  private readonly queues: Waiting<T>[][];
  private nextRequestId = 1;

  constructor(private readonly options: HandoverOptions) {
    this.queues = options.pools.map(() => []);
  }

  /** A request id no other request of this runtime has. */
  requestId(): number {
    return this.nextRequestId++;
  }

  /** Queues a request for the shard's next hand-over; resolves with its answer (rejects with `failed`'s error). */
  send<K extends ShardRequest["kind"]>(
    shard: number,
    request: Extract<ShardRequest<T>, { kind: K }>,
  ): Promise<Extract<ShardResponse<T>, { kind: ResponseKindOf[K] }>> {
    const queue = this.queues[shard];
    if (queue === undefined) return Promise.reject(new Error(`no shard ${shard}`));
    return new Promise((resolve, reject) => {
      queue.push({
        request,
        // The shard answers a request of kind K with ResponseKindOf[K] (or `failed` or `expired`, rejected in
        // `answer`).
        resolve: resolve as (response: ShardResponse<T>) => void,
        reject,
        started: this.options.requestLatency === undefined ? 0 : performance.now(),
      });
      if (queue.length === 1) setImmediate(this.flush, shard);
    });
  }

  /** Hands a shard's queued requests over as one task. */
  private readonly flush = (shard: number): void => {
    const pool = this.options.pools[shard];
    const waiting = this.queues[shard];
    if (pool === undefined || waiting === undefined || waiting.length === 0) return;
    this.queues[shard] = [];
    this.options.handover?.(shard, waiting.length);
    const task: ShardTask<T> = { kind: "requests", requests: waiting.map((item) => item.request) };
    (pool.run(task) as Promise<ShardTaskResult<T>>)
      .then((result) => {
        this.answer(shard, waiting, result);
      })
      .catch((error: unknown) => {
        // The thread died (or the task could not be handed over, or answering it threw): no request may be
        // left waiting; rejecting one that was already answered does nothing.
        this.options.log.error({ shard, requests: waiting.length, err: errorText(error) }, "shard task failed");
        for (const item of waiting) item.reject(new ServiceError("engine_error", {}, "shard unavailable"));
      });
  };

  /** Answers each request of a task from its result: `failed` and `expired` reject that request only. */
  private answer(shard: number, waiting: readonly Waiting<T>[], result: ShardTaskResult<T>): void {
    const requestLatency = this.options.requestLatency;
    const now = requestLatency === undefined ? 0 : performance.now();
    waiting.forEach((item, index) => {
      const response = result.responses[index];
      if (response?.requestId !== item.request.requestId) {
        item.reject(new Error(`shard ${shard} answered request ${response?.requestId} to ${item.request.requestId}`));
        return;
      }
      requestLatency?.(shard, item.request.kind, (now - item.started) / 1000);
      if (response.kind === "failed") {
        item.reject(new ServiceError(response.error.code, response.error.fields, response.error.message));
      } else if (response.kind === "expired") {
        item.reject(new DeadlineExceeded("engine", `deadline passed before the ${item.request.kind} was decided`));
      } else item.resolve(response);
    });
  }
}
