// Server side of `npm run bench:validate`, started as a child process so client and server never share a
// thread. Two roles, chosen by the first argument, mirror `npm start`:
//   db      hosts the embedded PGlite database (like the supervisor) and reports its URL;
//   wallet  runs the real wallet (`startWallet`, settings from the environment) plus a second grpc-js server
//           in the same process with one empty unary method, `/bench.v1.Bench/Empty`, the baseline.
// Each role reports over the IPC channel once ready and stops on SIGTERM/SIGINT or when the parent leaves. The
// wallet role also answers `{ type: "sample" }` with its CPU time and GC pauses so far.
import { PerformanceObserver } from "node:perf_hooks";
import * as grpc from "@grpc/grpc-js";
import { startEmbeddedPostgres } from "../kernel/db.js";
import { bindServer, CHANNEL_OPTIONS, shutdownServer } from "../kernel/grpc.js";
import { createLogger } from "../kernel/log.js";
import { loadWalletSettings } from "../wallet/config.js";
import { startWallet } from "../wallet/main.js";
import { isEntryPoint } from "../kernel/process.js";
import { rawBytesService, report, serveRole } from "./bench-child.js";

export const EMPTY_METHOD_PATH = "/bench.v1.Bench/Empty";

/** The baseline's service: one empty unary method of raw bytes. */
export const BENCH_SERVICE = rawBytesService("Empty", EMPTY_METHOD_PATH);

/** An empty protobuf message encodes to zero bytes. */
const EMPTY_REPLY = Buffer.alloc(0);

/** Cumulative CPU time and GC pauses of a process. */
export interface ResourceSample {
  cpuMs: number;
  gcCount: number;
  gcMs: number;
}

/** Starts counting GC pauses; the returned function reads the totals so far. */
export function resourceMeter(): () => ResourceSample {
  let gcCount = 0;
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcCount += 1;
      gcMs += entry.duration;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return () => {
    const cpu = process.cpuUsage();
    return { cpuMs: (cpu.user + cpu.system) / 1000, gcCount, gcMs };
  };
}

export type ServerMessage =
  | { type: "db-ready"; url: string }
  | { type: "wallet-ready"; walletPort: number; emptyPort: number }
  | { type: "sample"; sample: ResourceSample }
  | { type: "failed"; message: string };

export interface ParentMessage {
  type: "sample";
}

async function runDb(): Promise<() => Promise<void>> {
  const dataDir = process.env.DATA_DIR;
  if (dataDir === undefined || dataDir === "") throw new Error("DATA_DIR is required");
  const db = await startEmbeddedPostgres(dataDir);
  report({ type: "db-ready", url: db.url });
  return () => db.stop();
}

async function runWallet(): Promise<() => Promise<void>> {
  const settings = loadWalletSettings(process.env);
  const log = createLogger("wallet", settings.LOG_LEVEL);
  const wallet = await startWallet(settings, log);
  const empty = new grpc.Server(CHANNEL_OPTIONS);
  const handlers: grpc.UntypedServiceImplementation = {
    Empty: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      callback(null, EMPTY_REPLY);
    },
  };
  empty.addService(BENCH_SERVICE, handlers);
  const emptyPort = await bindServer(empty, settings.HOST, 0);
  const sample = resourceMeter();
  process.on("message", (message: ParentMessage) => {
    if (message.type === "sample") report({ type: "sample", sample: sample() });
  });
  report({ type: "wallet-ready", walletPort: wallet.grpcPort, emptyPort });
  return async () => {
    await shutdownServer(empty, 2_000);
    await wallet.stop();
  };
}

if (isEntryPoint(import.meta.url)) serveRole({ db: runDb, wallet: runWallet });
