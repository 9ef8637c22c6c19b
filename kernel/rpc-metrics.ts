// gRPC latency by method and status code, for servers (`unary` in kernel/grpc.ts) and clients (the gateway's
// facades). Labels are the method name and the status code's name: both from fixed sets, never ids. Each
// method resolves its children on first use of a code, so a call costs two clock reads and one array index.
import { status } from "@grpc/grpc-js";
import type { Registry } from "prom-client";
import { FastHistogramVec, type FastHistogramChild } from "./fast-histogram.js";

/** From sub-millisecond in-process answers to the 10 s deadline. */
export const RPC_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

const CODE_NAMES: readonly string[] = (() => {
  const names: string[] = [];
  for (const [name, code] of Object.entries(status)) if (typeof code === "number") names[code] = name;
  return names;
})();

/** The name of a gRPC status code ("OK", "NOT_FOUND", …); "UNKNOWN" for a number outside the table. */
export function codeName(code: number): string {
  return CODE_NAMES[code] ?? "UNKNOWN";
}

/** Records one finished call: its status code and duration in seconds. */
export type RpcObserver = (code: number, seconds: number) => void;

export type RpcSide = "server" | "client";

export class RpcMetrics {
  private readonly histogram: FastHistogramVec<"grpc_method" | "grpc_code">;

  constructor(registry: Registry, side: RpcSide) {
    this.histogram = new FastHistogramVec({
      name: `grpc_${side}_handling_seconds`,
      help:
        side === "server"
          ? "Time to answer a unary gRPC call, by method and status code."
          : "Time from sending a unary gRPC call to its answer, by method and status code.",
      buckets: RPC_BUCKETS,
      labelNames: ["grpc_method", "grpc_code"],
      registers: [registry],
    });
  }

  /** The observer of one method (call once per method, at wiring time). */
  method(method: string): RpcObserver {
    const children: (FastHistogramChild | undefined)[] = [];
    return (code, seconds) => {
      let child = children[code];
      if (child === undefined) {
        child = this.histogram.child({ grpc_method: method, grpc_code: codeName(code) });
        children[code] = child;
      }
      child.observe(seconds);
    };
  }
}
