// Loads the protos once with one set of loader options, and wraps unary handlers so every thrown error
// leaves through the error registry. Internal listeners can require `authorization: Bearer <INTERNAL_TOKEN>`
// and serve TLS (GRPC_TLS_* settings).
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import type { ProtoGrpcType as WalletProto } from "../proto/gen/wallet.js";
import type { ProtoGrpcType as EngineProto } from "../proto/gen/engine.js";
import type { ProtoGrpcType as MarketProto } from "../proto/gen/market.js";
import { joinHostPort } from "./address.js";
import type { CaBundle, PemFile } from "./config.js";
import { isDatabaseUnavailable } from "./db-deadline.js";
import { deadlineOfBudget, withCallDeadline } from "./call-deadline.js";
import { BACKEND_CODES, DeadlineExceeded, ServiceError, toGrpcStatus, type Backend } from "./errors.js";
import { bearerCheck } from "./internal-token.js";
import type { RpcMetrics } from "./rpc-metrics.js";
import {
  context as otelContext,
  type Context,
  contextOfMetadata,
  contextOfTraceparent,
  endServerSpan,
  ROOT_CONTEXT,
  startServerSpan,
  trace,
  tracingOn,
  unsampledParent,
} from "./tracing.js";

const PROTO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "proto");

/** Must match the flags in scripts/gen-proto.sh so the generated types describe what the loader returns. */
const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

/** The wallet's gRPC surface (wallet.v1). */
export const WALLET_PROTOS = ["wallet/v1/wallet.proto"] as const;
/** The engine's gRPC surface (engine.v1, market.v1). */
export const ENGINE_PROTOS = ["engine/v1/engine.proto", "market/v1/market.proto"] as const;

/** The proto-loader definitions of proto files under proto/ (what the servers load, and reflection describes). */
export function protoDefinition(files: readonly string[]): protoLoader.PackageDefinition {
  return protoLoader.loadSync([...files], LOADER_OPTIONS);
}

function load(file: string): grpc.GrpcObject {
  return grpc.loadPackageDefinition(protoDefinition([file]));
}

export const loadWalletProto = (): WalletProto => load("wallet/v1/wallet.proto") as unknown as WalletProto;
export const loadEngineProto = (): EngineProto => load("engine/v1/engine.proto") as unknown as EngineProto;
export const loadMarketProto = (): MarketProto => load("market/v1/market.proto") as unknown as MarketProto;

/** Client/server channel options shared by every hop: keepalive so idle connections survive proxies. */
export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  "grpc.keepalive_time_ms": 30_000,
  "grpc.keepalive_timeout_ms": 10_000,
  "grpc.max_receive_message_length": 16 * 1024 * 1024,
};

/** A check of the internal token for handlers that are not unary (streams); true when none is configured. */
export function internalTokenCheck(internalToken: string | undefined): (metadata: grpc.Metadata) => boolean {
  const tokenOk = bearerCheck(internalToken);
  return (metadata) => tokenOk(metadata.get("authorization")[0]);
}

export interface UnaryContext {
  /** The caller's request id (x-request-id metadata, or the session frame's request_id), for logs. */
  requestId: string | undefined;
  /** The call's server span, while tracing is on (error lines are written inside it). */
  trace?: Context | undefined;
  /**
   * The caller's deadline (epoch ms on this host's wall clock), undefined when it set none; also what
   * kernel/call-deadline.ts's `callDeadline` answers while the handler runs synchronously.
   */
  deadline?: number | undefined;
}

type UnaryImpl<Req, Res> = (request: Req, context: UnaryContext) => Promise<Res> | Res;

/**
 * The same handler entered without a gRPC call of its own: a call carried by a session stream
 * (kernel/session-server.ts), whose stream already passed the internal-token check. `traceparent` is the
 * caller's W3C trace context, when it sent one; `budgetMs` the time the caller still gives the call (0 or absent:
 * no deadline), as grpc-timeout is for a unary call.
 */
export type DirectCall<Req, Res> = (
  request: Req,
  requestId: string | undefined,
  traceparent: string | undefined,
  callback: grpc.sendUnaryData<Res>,
  budgetMs?: number,
) => void;

/** A grpc-js unary handler that can also be entered directly (`direct`), with the same metrics and spans. */
export type UnaryHandler<Req, Res> = grpc.handleUnaryCall<Req, Res> & { direct: DirectCall<Req, Res> };

export interface UnaryOptions {
  internalToken: string | undefined;
  /** Full gRPC service name (`engine.v1.Engine`), for span names. */
  service?: string;
  /**
   * The service answering (default engine): its fault code stands in for an error outside the registry, and a
   * database that did not answer (kernel/db-deadline.ts) is its `*_unavailable`, not a fault.
   */
  backend?: Backend;
  /** An unexpected error of a handler, with the caller's request id. */
  onError?: (method: string, error: unknown, requestId: string | undefined) => void;
  /** A call answered DEADLINE_EXCEEDED because its deadline passed before its work was decided. */
  onExpired?: (method: string) => void;
  /** Latency by method and code (`grpc_server_handling_seconds`); none when metrics are off. */
  metrics?: RpcMetrics | undefined;
}

/** Wraps a callback so it records the call's code and duration first. */
function timed<Res>(
  observe: (code: number, seconds: number) => void,
  callback: grpc.sendUnaryData<Res>,
): grpc.sendUnaryData<Res> {
  const started = performance.now();
  return (error, value) => {
    const code = error === null ? grpc.status.OK : (error.code ?? grpc.status.UNKNOWN);
    observe(code, (performance.now() - started) / 1000);
    callback(error, value);
  };
}

/** A database that did not answer, as the backend's `*_unavailable`; any other error as it is. */
function named(backend: Backend, error: unknown): unknown {
  if (error instanceof ServiceError || !isDatabaseUnavailable(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new ServiceError(
    BACKEND_CODES[backend].unavailable,
    {},
    `the ${backend}'s database did not answer (${reason})`,
  );
}

/** Reports an unexpected error, then answers with the registry's status (module level: no closure per call). */
function fail<Res>(
  method: string,
  options: UnaryOptions,
  callback: grpc.sendUnaryData<Res>,
  thrown: unknown,
  context: UnaryContext,
): void {
  const backend = options.backend ?? "engine";
  const error = named(backend, thrown);
  if (error instanceof DeadlineExceeded) options.onExpired?.(method);
  const onError = options.onError;
  if (onError !== undefined && !(error instanceof ServiceError)) {
    if (context.trace === undefined) onError(method, error, context.requestId);
    else otelContext.with(context.trace, onError, undefined, method, error, context.requestId);
  }
  callback(toGrpcStatus(error, BACKEND_CODES[backend].fault));
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

const UNAUTHENTICATED: Partial<grpc.StatusObject> = {
  code: grpc.status.UNAUTHENTICATED,
  details: "internal token required",
};

/** Runs `impl` and answers through `callback`: a plain value at once, a promise once it settles, an error through the registry. */
function answer<Req, Res>(
  method: string,
  impl: UnaryImpl<Req, Res>,
  options: UnaryOptions,
  request: Req,
  context: UnaryContext,
  callback: grpc.sendUnaryData<Res>,
): void {
  let result: Res | Promise<Res>;
  try {
    result = withCallDeadline(context.deadline, impl, request, context);
  } catch (error) {
    fail(method, options, callback, error instanceof Error ? error : new Error(String(error)), context);
    return;
  }
  // A plain value (a synchronous answer) is sent at once, without a promise round trip.
  if (isPromiseLike(result)) {
    result.then(
      (response) => {
        callback(null, response);
      },
      (error: unknown) => {
        fail(method, options, callback, error, context);
      },
    );
  } else {
    callback(null, result);
  }
}

/**
 * Runs `handle` inside a server span of the call, a child of `parent`: the handler (and the shard message it
 * sends) runs in the span, which ends with the answer.
 */
function inServerSpan<Res>(
  spanName: string,
  method: string,
  parent: Context,
  callback: grpc.sendUnaryData<Res>,
  handle: (callback: grpc.sendUnaryData<Res>, traceContext: Context) => void,
): void {
  const span = startServerSpan(spanName, method, parent);
  const traceContext = trace.setSpan(otelContext.active(), span);
  otelContext.with(traceContext, () => {
    handle((error, value) => {
      endServerSpan(span, error);
      callback(error, value);
    }, traceContext);
  });
}

/**
 * A unary call's deadline as grpc-js read it from grpc-timeout (epoch ms on this host); undefined for none (and
 * for a call object made by hand, without `getDeadline`).
 */
function deadlineOf(call: Partial<Pick<grpc.ServerUnaryCall<unknown, unknown>, "getDeadline">>): number | undefined {
  const deadline = call.getDeadline?.();
  if (deadline === undefined) return undefined;
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(at) ? at : undefined;
}

/**
 * Adapts a function (sync or async) into a grpc-js unary handler; errors go through the registry. The handler's
 * `direct` runs the same function for a call that arrived on a session stream.
 */
export function unary<Req, Res>(
  method: string,
  impl: UnaryImpl<Req, Res>,
  options: UnaryOptions,
): UnaryHandler<Req, Res> {
  // Constant time without a digest per call (kernel/internal-token.ts says why that is safe).
  const tokenOk = bearerCheck(options.internalToken);
  const spanName = options.service === undefined ? method : `${options.service}/${method}`;
  const observe = options.metrics?.method(method);
  /** Runs the call under its caller's trace (`parent` is read only when tracing is on). */
  const run = (
    request: Req,
    requestId: string | undefined,
    deadline: number | undefined,
    callback: grpc.sendUnaryData<Res>,
    parentOf: () => Context,
  ): void => {
    if (!tracingOn()) {
      answer(method, impl, options, request, { requestId, trace: undefined, deadline }, callback);
      return;
    }
    // The caller's trace continues here. A caller that did not sample gets no span (parent-based sampling
    // would record nothing under it).
    const parent = parentOf();
    if (unsampledParent(parent)) {
      answer(method, impl, options, request, { requestId, trace: undefined, deadline }, callback);
      return;
    }
    inServerSpan(spanName, method, parent, callback, (traced, traceContext) => {
      answer(method, impl, options, request, { requestId, trace: traceContext, deadline }, traced);
    });
  };
  const handler: grpc.handleUnaryCall<Req, Res> = (call, untimed) => {
    const callback = observe === undefined ? untimed : timed(observe, untimed);
    if (!tokenOk(call.metadata.get("authorization")[0])) {
      callback(UNAUTHENTICATED);
      return;
    }
    const requestId = call.metadata.get("x-request-id")[0];
    run(call.request, typeof requestId === "string" ? requestId : undefined, deadlineOf(call), callback, () =>
      contextOfMetadata(call.metadata),
    );
  };
  const direct: DirectCall<Req, Res> = (request, requestId, traceparent, untimed, budgetMs = 0) => {
    const callback = observe === undefined ? untimed : timed(observe, untimed);
    run(request, requestId, deadlineOfBudget(budgetMs), callback, () =>
      traceparent === undefined ? ROOT_CONTEXT : contextOfTraceparent(traceparent),
    );
  };
  return Object.assign(handler, { direct });
}

/** A listener's credentials: TLS with this certificate and key (GRPC_TLS_CERT_FILE, GRPC_TLS_KEY_FILE), else plaintext. */
export function serverCredentials(cert: PemFile | undefined, key: PemFile | undefined): grpc.ServerCredentials {
  if (cert === undefined || key === undefined) return grpc.ServerCredentials.createInsecure();
  return grpc.ServerCredentials.createSsl(
    null,
    [{ cert_chain: Buffer.from(cert.pem), private_key: Buffer.from(key.pem) }],
    false,
  );
}

/** A client's credentials: TLS trusting only this CA (GRPC_TLS_CA_FILE), else plaintext. */
export function channelCredentials(ca: CaBundle | undefined): grpc.ChannelCredentials {
  return ca === undefined ? grpc.credentials.createInsecure() : grpc.credentials.createSsl(Buffer.from(ca.pem));
}

/**
 * Binds a server to host:port (`[host]:port` for IPv6) and resolves with the actual port (0 picks a free one);
 * plaintext unless `credentials` (serverCredentials) say TLS.
 */
export async function bindServer(
  server: grpc.Server,
  host: string,
  port: number,
  credentials: grpc.ServerCredentials = grpc.ServerCredentials.createInsecure(),
): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(joinHostPort(host, port), credentials, (error, boundPort) => {
      if (error) reject(error);
      else resolve(boundPort);
    });
  });
}

/** What a server runs first when it shuts down (e.g. ending its long-lived streams: kernel/session-server.ts). */
const shutdownHooks = new WeakMap<grpc.Server, () => void>();

export function onShutdown(server: grpc.Server, hook: () => void): void {
  shutdownHooks.set(server, hook);
}

export async function shutdownServer(server: grpc.Server, graceMs: number): Promise<void> {
  shutdownHooks.get(server)?.();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    timer.unref();
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Metadata for an outgoing call: request id and the internal token when configured. */
export function outgoingMetadata(requestId: string | undefined, internalToken: string | undefined): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (requestId !== undefined) metadata.set("x-request-id", requestId);
  if (internalToken !== undefined) metadata.set("authorization", `Bearer ${internalToken}`);
  return metadata;
}

/** Promise form of a unary client call. */
export async function call<Req, Res>(
  fn: (request: Req, metadata: grpc.Metadata, options: grpc.CallOptions, cb: grpc.requestCallback<Res>) => unknown,
  request: Req,
  metadata: grpc.Metadata,
  deadlineMs = 10_000,
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    fn(request, metadata, { deadline: Date.now() + deadlineMs }, (error, response) => {
      if (error) reject(error);
      else if (response === undefined) reject(new Error("empty gRPC response"));
      else resolve(response);
    });
  });
}
