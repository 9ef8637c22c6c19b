// The load generator of order entry over the stream (docs/performance.md, "Order entry over the stream"): sockets
// on GET /v1/stream (docs/streaming.md), each keeping a window of operations in flight (pipelining), each
// operation with its own integer `id`. Closed loop: every answer sends the socket's next operation until the
// round's time is up; then the operations still in flight are waited for. Latency per operation is its answer's
// arrival minus its send. Answers are matched to operations by `id`, read from the head of the message
// (`{"op":…,"id":N,"status":S,…}`, the shape docs/streaming.md gives); a message in another shape is parsed whole.
// The result has the shape of the HTTP load generator's (scripts/bench-engine-load.ts), so the rounds, the CPU
// split by process and the summaries of scripts/bench-session.ts take it as they take an HTTP round.
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import { latencyStats, round, type RunResult } from "./bench-engine-load.js";

/** The `id` and `status` of an answer; undefined where the message has none. */
export interface Answer {
  id: number | undefined;
  status: number | undefined;
}

const HEAD = /^\{"op":"[\w.]+","id":(\d+),"status":(\d+)[,}]/;
/** Enough of a message for its op, id and status. */
const HEAD_BYTES = 96;

/** The `id` and `status` of a stream message: from its head when it has the answers' shape, else parsed whole. */
export function answerOf(data: Buffer): Answer {
  const head = HEAD.exec(data.toString("latin1", 0, Math.min(HEAD_BYTES, data.length)));
  if (head !== null) return { id: Number(head[1]), status: Number(head[2]) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString("utf8"));
  } catch {
    return { id: undefined, status: undefined };
  }
  if (typeof parsed !== "object" || parsed === null) return { id: undefined, status: undefined };
  const { id, status } = parsed as { id?: unknown; status?: unknown };
  return {
    id: typeof id === "number" && Number.isInteger(id) ? id : undefined,
    status: typeof status === "number" ? status : undefined,
  };
}

/** A stream socket of one key that places orders on its own accounts (their indexes among the part's accounts). */
export class OrderSocket {
  ws: WebSocket | undefined;
  nextId = 1;
  /** Operations in flight: id → performance.now() at the send. */
  readonly pending = new Map<number, number>();

  constructor(
    readonly url: string,
    private readonly key: { key: string; secret: string },
    readonly accounts: readonly { accountId: string; index: number }[],
  ) {}

  /** Opens the socket unless it is open; rejects with the status and body of a refused upgrade. */
  async connect(): Promise<void> {
    if (this.ws?.readyState === WebSocket.OPEN) return;
    this.pending.clear();
    const ws = new WebSocket(this.url, {
      headers: { "x-api-key": this.key.key, "x-api-secret": this.key.secret },
      perMessageDeflate: false,
    });
    ws.on("error", () => undefined);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
        res.on("end", () => {
          reject(new Error(`GET /v1/stream refused: ${res.statusCode ?? 0} ${body.slice(0, 300)}`));
        });
      });
      ws.once("close", (code) => {
        reject(new Error(`GET /v1/stream closed before it opened (${code})`));
      });
    });
    this.ws = ws;
  }

  close(): void {
    this.ws?.close();
    this.ws = undefined;
    this.pending.clear();
  }
}

export interface PipelineOptions {
  /** The target's name in the result. */
  name: string;
  sockets: readonly OrderSocket[];
  /** Operations in flight per socket. */
  window: number;
  ms: number;
  /** The text of operation `id` on `socket`. */
  operation(socket: OrderSocket, id: number): string;
  expectStatus: number;
  /** Every `checkEvery`-th answer's whole message is given to `check` (0: none). */
  checkEvery: number;
  check(message: string): string | undefined;
  /** How long the operations in flight at the end may take to answer (default 30 s). */
  drainMs?: number;
}

/** One closed-loop round over the sockets (opened beforehand), `window` operations in flight on each. */
export function pipelinedRun(options: PipelineOptions): Promise<RunResult> {
  return new Pipeline(options).run();
}

class Pipeline {
  private readonly latencies: number[] = [];
  private completed = 0;
  private errors = 0;
  private readonly statuses: Record<string, number> = {};
  private firstError: string | undefined;
  private inFlight = 0;
  private answers = 0;
  private readonly started = performance.now();
  private readonly end: number;
  private last: number;
  private readonly cpuStart = process.cpuUsage();
  private readonly detach: (() => void)[] = [];
  private done: () => void = () => undefined;

  constructor(private readonly o: PipelineOptions) {
    this.end = this.started + o.ms;
    this.last = this.started;
  }

  async run(): Promise<RunResult> {
    const finished = new Promise<void>((resolve) => {
      this.done = resolve;
    });
    for (const socket of this.o.sockets) this.attach(socket);
    for (const socket of this.o.sockets) for (let i = 0; i < this.o.window; i++) this.send(socket);
    if (this.inFlight === 0) this.done();
    const timer = setTimeout(
      () => {
        this.abandon();
      },
      this.o.ms + (this.o.drainMs ?? 30_000),
    );
    await finished;
    clearTimeout(timer);
    for (const off of this.detach) off();
    return this.result();
  }

  private attach(socket: OrderSocket): void {
    const ws = socket.ws;
    if (ws === undefined) {
      this.fail("socket", "a socket of the round is not open");
      return;
    }
    const onMessage = (data: Buffer): void => {
      this.answer(socket, data);
    };
    const onClose = (code: number): void => {
      this.lost(socket, `the socket closed (${code})`);
    };
    ws.on("message", onMessage);
    ws.on("close", onClose);
    this.detach.push(() => {
      ws.off("message", onMessage);
      ws.off("close", onClose);
    });
  }

  private send(socket: OrderSocket): void {
    const ws = socket.ws;
    if (ws === undefined || ws.readyState !== WebSocket.OPEN) return;
    const id = socket.nextId++;
    socket.pending.set(id, performance.now());
    this.inFlight++;
    ws.send(this.o.operation(socket, id));
  }

  private answer(socket: OrderSocket, data: Buffer): void {
    const now = performance.now();
    const { id, status } = answerOf(data);
    const sent = id === undefined ? undefined : socket.pending.get(id);
    if (id === undefined || sent === undefined) {
      this.fail("unexpected", `a message that answers no operation in flight: ${data.toString("utf8", 0, 300)}`);
      return;
    }
    socket.pending.delete(id);
    this.inFlight--;
    this.last = now;
    this.record(status, data, now - sent);
    if (now < this.end) this.send(socket);
    else if (this.inFlight === 0) this.done();
  }

  private record(status: number | undefined, data: Buffer, latencyMs: number): void {
    const checked = this.o.checkEvery > 0 && this.answers % this.o.checkEvery === 0;
    this.answers++;
    if (status !== this.o.expectStatus) {
      this.fail(String(status), `status ${status}: ${data.toString("utf8", 0, 300)}`);
      return;
    }
    const problem = checked ? this.o.check(data.toString("utf8")) : undefined;
    if (problem !== undefined) {
      this.fail("check", problem);
      return;
    }
    this.completed++;
    this.latencies.push(latencyMs);
  }

  private fail(status: string, error: string, count = 1): void {
    this.errors += count;
    this.statuses[status] = (this.statuses[status] ?? 0) + count;
    this.firstError ??= error;
  }

  /** A socket closed during the round: its operations in flight are errors. */
  private lost(socket: OrderSocket, why: string): void {
    const count = socket.pending.size;
    socket.pending.clear();
    this.inFlight -= count;
    this.fail("socket", why, Math.max(1, count));
    if (this.inFlight === 0) this.done();
  }

  /** The drain's time is up: what is still in flight is an error, and its sockets are closed (reopened later). */
  private abandon(): void {
    for (const off of this.detach.splice(0)) off();
    for (const socket of this.o.sockets) {
      const count = socket.pending.size;
      if (count === 0) continue;
      this.fail("timeout", `${count} operations unanswered ${this.o.drainMs ?? 30_000} ms after the round`, count);
      socket.close();
    }
    this.done();
  }

  private result(): RunResult {
    const cpu = process.cpuUsage(this.cpuStart);
    const durationMs = Math.max(1, round(this.last - this.started, 1));
    return {
      target: this.o.name,
      mode: "closed",
      connections: this.o.sockets.length,
      durationMs,
      completed: this.completed,
      requestsPerSecond: Math.round(this.completed / (durationMs / 1000)),
      errors: this.errors,
      statuses: this.statuses,
      firstError: this.firstError,
      latency: latencyStats(this.latencies),
      clientCpuUsPerRequest: round((cpu.user + cpu.system) / Math.max(1, this.completed), 1),
    };
  }
}
