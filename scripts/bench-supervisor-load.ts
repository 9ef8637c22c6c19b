// The steady order load of `npm run bench:supervisor` (scripts/bench-supervisor.ts) and the check that follows
// it. Workers place orders at a paced rate shared between them, round-robin over the accounts: a MARKET order
// (ETH-USD, buy and sell in turn, it fills), or a LIMIT buy far below the market, resting (GTC) while its account
// holds fewer than RESTING_MAX of them and IOC otherwise (answered CANCELED), so no account reaches
// ENGINE_MAX_WORKING_ORDERS. A worker answered 503 waits as Retry-After asks; one that got no answer (refused
// connection) waits a second. Every request is kept with when it was sent and answered; afterwards every order
// answered 201 is read back by id: one that is not found with its client_id is an acknowledged order lost.
import { v1, type CreatedKey, type JsonResponse } from "../test/harness/client.js";

/** Resting LIMIT orders one account is given at most (ENGINE_MAX_WORKING_ORDERS is 200 by default). */
const RESTING_MAX = 100;

export interface Sent {
  clientId: string;
  /** performance.now() when the request was sent and when its answer (or error) came. */
  sentAt: number;
  answeredAt: number;
  /** The HTTP status, or undefined when no answer came (refused, reset). */
  status: number | undefined;
  /** `error` of an answer's body other than 201 (engine_unavailable, …), or the network error's message. */
  reason?: string;
  orderId?: string;
}

export interface LoadOptions {
  v1Base: string;
  key: CreatedKey;
  accountIds: readonly string[];
  workers: number;
  /** Orders per second over all workers. */
  rate: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A steady load on the stack until stop(); `sent` holds every request as it is answered. */
export class OrderLoad {
  readonly sent: Sent[] = [];
  private next = 0;
  private done = false;
  private readonly resting: number[];
  private running: Promise<unknown> | undefined;
  /** Called with every request once answered (the bench watches for the first 201 after a kill). */
  onAnswer: (entry: Sent) => void = () => undefined;

  constructor(private readonly options: LoadOptions) {
    this.resting = options.accountIds.map(() => 0);
  }

  start(): void {
    this.running = Promise.all(Array.from({ length: this.options.workers }, () => this.worker()));
  }

  async stop(): Promise<void> {
    this.done = true;
    await this.running;
  }

  private body(index: number, account: number, clientId: string): { body: Record<string, unknown>; rests: boolean } {
    const common = { account_id: this.options.accountIds[account], client_id: clientId };
    if (index % 2 === 1) {
      const side = index % 4 === 1 ? "BUY" : "SELL";
      return { body: { ...common, symbol: "ETH-USD", side, kind: "MARKET", quantity: "0.01" }, rests: false };
    }
    const rests = (this.resting[account] ?? 0) < RESTING_MAX;
    const limit = { symbol: "BTC-USD", side: "BUY", kind: "LIMIT", quantity: "0.001", limit_price: 1_000 };
    return { body: { ...common, ...limit, time_in_force: rests ? "GTC" : "IOC" }, rests };
  }

  private async worker(): Promise<void> {
    const pauseMs = (1_000 * this.options.workers) / this.options.rate;
    while (!this.done) {
      const index = this.next++;
      const account = index % this.options.accountIds.length;
      const clientId = `bsup-${index}`;
      const { body, rests } = this.body(index, account, clientId);
      if (rests) this.resting[account] = (this.resting[account] ?? 0) + 1;
      const entry: Sent = { clientId, sentAt: performance.now(), answeredAt: 0, status: undefined };
      try {
        const answer = await v1(this.options.v1Base, "/v1/order", this.options.key, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        entry.status = answer.status;
        if (answer.status === 201) entry.orderId = String((answer.body.order as Record<string, unknown>).order_id);
        else entry.reason = typeof answer.body.error === "string" ? answer.body.error : "";
        if (rests && !(answer.status === 201 && (answer.body.order as Record<string, unknown>).status === "NEW")) {
          this.resting[account] = (this.resting[account] ?? 1) - 1;
        }
        entry.answeredAt = performance.now();
        this.sent.push(entry);
        this.onAnswer(entry);
        const waitMs = answer.status === 503 ? retryAfterMs(answer) : pauseMs - (entry.answeredAt - entry.sentAt);
        if (waitMs > 0) await sleep(waitMs);
      } catch (error) {
        if (rests) this.resting[account] = (this.resting[account] ?? 1) - 1;
        entry.answeredAt = performance.now();
        entry.reason = error instanceof Error ? String((error.cause as Error | undefined)?.message ?? error) : "error";
        this.sent.push(entry);
        this.onAnswer(entry);
        await sleep(1_000);
      }
    }
  }
}

/** Retry-After (seconds) of a 503 in ms; 1 s when it has none. */
function retryAfterMs(answer: JsonResponse): number {
  const seconds = Number(answer.headers.get("retry-after") ?? "1");
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1_000;
}

/** The acknowledged orders (201) not found by id with their client_id: read back 8 at a time. */
export async function lostAcknowledged(v1Base: string, key: CreatedKey, sent: readonly Sent[]): Promise<string[]> {
  const acked = sent.filter((entry) => entry.status === 201);
  const lost: string[] = [];
  let next = 0;
  const reader = async (): Promise<void> => {
    for (let i = next++; i < acked.length; i = next++) {
      const entry = acked[i] as Sent;
      const read = await v1(v1Base, `/v1/order/${String(entry.orderId)}`, key);
      const order = (read.body.order as Record<string, unknown> | undefined) ?? read.body;
      if (read.status !== 200 || order.order_id !== entry.orderId || order.client_id !== entry.clientId) {
        lost.push(`${entry.clientId} (${String(entry.orderId)}): ${read.status}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, reader));
  return lost;
}
