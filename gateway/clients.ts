// gRPC clients of the gateway: one long-lived channel each to the wallet and the engine, behind small typed
// facades that return promises and attach the request id and the internal token.
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { protoPath as healthProtoPath } from "grpc-health-check";
import { fromGrpcError, readAgainOnBreak } from "../kernel/errors.js";
import { COMMIT_GRACE_MS } from "../kernel/call-deadline.js";
import { CHANNEL_OPTIONS, loadEngineProto, outgoingMetadata } from "../kernel/grpc.js";
import type { RpcMetrics, RpcObserver } from "../kernel/rpc-metrics.js";
import { createWalletClient } from "../kernel/wallet-codec.js";
import { EngineRouter, type EngineCalls } from "./engine-router.js";
import type { HoldSettings } from "./engine-hold.js";
import { endSpan, ROOT_CONTEXT, startCarriedClientSpan, startClientSpan, tracingOn } from "../kernel/tracing.js";
import type { Origin } from "./origin.js";
import type { CatalogueReads } from "./v1/catalogue-cache.js";
import { SessionClient } from "../kernel/session-client.js";
import { ENGINE_SESSION_PATH } from "../kernel/session-codec.js";
import type { WalletClient } from "../proto/gen/wallet/v1/Wallet.js";
import type { EngineDefinition } from "../proto/gen/engine/v1/Engine.js";
import {
  ENGINE_METHODS,
  type AnyRequest,
  type EngineMethod,
  type EngineRpc,
  type RequestOf,
  type ResponseOf,
} from "./engine-methods.js";
import type { CreateApiKeyRequest } from "../proto/gen/wallet/v1/CreateApiKeyRequest.js";
import type { CreateApiKeyResponse__Output } from "../proto/gen/wallet/v1/CreateApiKeyResponse.js";
import type { ApiKey__Output } from "../proto/gen/wallet/v1/ApiKey.js";
import type { ListApiKeysResponse__Output } from "../proto/gen/wallet/v1/ListApiKeysResponse.js";
import type { RevokeApiKeyResponse__Output } from "../proto/gen/wallet/v1/RevokeApiKeyResponse.js";
import type { ValidateApiKeyRequest } from "../proto/gen/wallet/v1/ValidateApiKeyRequest.js";
import type { ValidateApiKeyResponse__Output } from "../proto/gen/wallet/v1/ValidateApiKeyResponse.js";
/** The gRPC deadline when none is given (GRPC_DEADLINE_MS's default). */
export const DEFAULT_DEADLINE_MS = 1_500;

type Start<Res> = (
  metadata: grpc.Metadata,
  callOptions: grpc.CallOptions,
  callback: grpc.requestCallback<Res>,
) => unknown;

/** A call's callback into its promise; with `observe`, the call's code and duration are recorded first. */
function settle<T>(
  resolve: (value: T) => void,
  reject: (error: unknown) => void,
  observe?: RpcObserver,
): grpc.requestCallback<T> {
  const started = observe === undefined ? 0 : performance.now();
  return (error, response) => {
    observe?.(error ? error.code : grpc.status.OK, (performance.now() - started) / 1000);
    if (error) reject(error);
    else if (response === undefined) reject(new Error("empty gRPC response"));
    else resolve(response);
  };
}

/**
 * Promise form of unary calls, with the request id, the internal token and (when tracing) the trace context of
 * the request the call serves (its `Origin`: the gateway's context manager does not follow awaits);
 * with metrics on, each call's latency by method and code (`grpc_client_handling_seconds`).
 */
abstract class UnaryApi {
  private readonly observers = new Map<string, RpcObserver>();

  constructor(
    private readonly token: string | undefined,
    /** Full gRPC service name, for span names (`wallet.v1.Wallet/ValidateApiKey`). */
    private readonly service: string,
    private readonly metrics: RpcMetrics | undefined,
    /** Each call's deadline (GRPC_DEADLINE_MS). */
    protected readonly deadlineMs: number,
  ) {}

  private options(graceMs: number): grpc.CallOptions {
    return { deadline: Date.now() + this.deadlineMs + graceMs };
  }

  /**
   * `graceMs` lengthens the deadline for a call whose server decides by its deadline less that much
   * (kernel/call-deadline.ts COMMIT_GRACE_MS): its answer has that long to arrive.
   */
  protected unary<Res>(method: string, origin: Origin, start: Start<Res>, graceMs = 0): Promise<Res> {
    if (tracingOn()) return this.traced(method, origin, start, graceMs);
    return new Promise((resolve, reject) => {
      start(
        outgoingMetadata(origin.requestId, this.token),
        this.options(graceMs),
        this.settler(method, resolve, reject),
      );
    });
  }

  /** The call's callback, timed when metrics are on (the clock starts here, just before the call). */
  private settler<Res>(
    method: string,
    resolve: (value: Res) => void,
    reject: (error: unknown) => void,
  ): grpc.requestCallback<Res> {
    const metrics = this.metrics;
    if (metrics === undefined) return settle(resolve, reject);
    let observe = this.observers.get(method);
    if (observe === undefined) {
      observe = metrics.method(method);
      this.observers.set(method, observe);
    }
    return settle(resolve, reject, observe);
  }

  /**
   * A call carried by a session stream: `send` gets the traceparent to put in the frame (when tracing) and the
   * callback; metrics and the client span are those of a unary call.
   */
  protected carry<Res>(
    method: string,
    origin: Origin,
    send: (traceparent: string | undefined, callback: grpc.requestCallback<Res>) => void,
  ): Promise<Res> {
    return new Promise((resolve, reject) => {
      const done = this.settler(method, resolve, reject);
      if (!tracingOn()) {
        send(undefined, done);
        return;
      }
      const { span, traceparent } = startCarriedClientSpan(`${this.service}/${method}`, origin.trace ?? ROOT_CONTEXT);
      if (span === undefined) {
        send(traceparent, done);
        return;
      }
      send(traceparent, (error, response) => {
        endSpan(span, error ?? undefined);
        done(error, response);
      });
    });
  }

  private traced<Res>(method: string, origin: Origin, start: Start<Res>, graceMs: number): Promise<Res> {
    const metadata = outgoingMetadata(origin.requestId, this.token);
    const span = startClientSpan(`${this.service}/${method}`, metadata, origin.trace ?? ROOT_CONTEXT);
    if (span === undefined) {
      return new Promise((resolve, reject) => {
        start(metadata, this.options(graceMs), this.settler(method, resolve, reject));
      });
    }
    return new Promise((resolve, reject) => {
      const done = this.settler(method, resolve, reject);
      start(metadata, this.options(graceMs), (error, response) => {
        endSpan(span, error ?? undefined);
        done(error, response);
      });
    });
  }
}

export class WalletApi extends UnaryApi {
  constructor(
    readonly client: WalletClient,
    token: string | undefined,
    metrics?: RpcMetrics,
    deadlineMs = DEFAULT_DEADLINE_MS,
  ) {
    super(token, "wallet.v1.Wallet", metrics, deadlineMs);
  }

  /**
   * A unary call whose failure is the registry error named for the wallet (wallet_unavailable, wallet_error). A
   * `read` is sent once more when a broken connection or session cut it (kernel/errors.ts readAgainOnBreak).
   */
  private walletCall<Res>(method: string, origin: Origin, start: Start<Res>, read = false, graceMs = 0): Promise<Res> {
    const call = (): Promise<Res> => this.unary(method, origin, start, graceMs);
    return (read ? readAgainOnBreak(call) : call()).catch((error: unknown) => {
      throw fromGrpcError(error, "wallet");
    });
  }

  createApiKey(request: CreateApiKeyRequest, origin: Origin): Promise<CreateApiKeyResponse__Output> {
    const start: Start<CreateApiKeyResponse__Output> = (m, o, cb) => this.client.CreateApiKey(request, m, o, cb);
    return this.walletCall("CreateApiKey", origin, start, false, COMMIT_GRACE_MS);
  }

  listApiKeys(userId: string, origin: Origin): Promise<ListApiKeysResponse__Output> {
    const start: Start<ListApiKeysResponse__Output> = (m, o, cb) =>
      this.client.ListApiKeys({ user_id: userId }, m, o, cb);
    return this.walletCall("ListApiKeys", origin, start, true);
  }

  getApiKey(userId: string, id: string, origin: Origin): Promise<ApiKey__Output> {
    const start: Start<ApiKey__Output> = (m, o, cb) => this.client.GetApiKey({ user_id: userId, id }, m, o, cb);
    return this.walletCall("GetApiKey", origin, start, true);
  }

  revokeApiKey(userId: string, id: string, origin: Origin): Promise<RevokeApiKeyResponse__Output> {
    return this.walletCall("RevokeApiKey", origin, (m, o, cb) =>
      this.client.RevokeApiKey({ user_id: userId, id }, m, o, cb),
    );
  }

  validateApiKey(request: ValidateApiKeyRequest, origin: Origin): Promise<ValidateApiKeyResponse__Output> {
    const start: Start<ValidateApiKeyResponse__Output> = (m, o, cb) => this.client.ValidateApiKey(request, m, o, cb);
    return this.walletCall("ValidateApiKey", origin, start, true);
  }
}

/**
 * One engine's calls. With a session (the default), every call is a frame on one long-lived stream
 * (kernel/session-client.ts): no HTTP/2 stream, headers or trailers per call. Without one, each is a unary
 * call. Either way the messages are the same proto-loader encodings, and metrics and spans are the same.
 */
export class EngineApi extends UnaryApi implements EngineCalls {
  constructor(
    readonly client: grpc.Client,
    private readonly definitions: EngineDefinition,
    token: string | undefined,
    metrics?: RpcMetrics,
    private readonly session?: SessionClient,
    deadlineMs = DEFAULT_DEADLINE_MS,
  ) {
    super(token, "engine.v1.Engine", metrics, deadlineMs);
  }

  /** `method` of gateway/engine-methods.ts on this engine. */
  call(method: EngineMethod, request: AnyRequest, origin: Origin): Promise<unknown> {
    return this.invoke(ENGINE_METHODS[method].rpc, request, origin);
  }

  private invoke<M extends EngineRpc>(method: M, request: RequestOf<M>, origin: Origin): Promise<ResponseOf<M>> {
    const definition = this.definitions[method] as unknown as grpc.MethodDefinition<RequestOf<M>, ResponseOf<M>>;
    const session = this.session;
    if (session === undefined) {
      return this.unary(method, origin, (metadata, options, callback) =>
        this.client.makeUnaryRequest(
          definition.path,
          definition.requestSerialize,
          definition.responseDeserialize,
          request,
          metadata,
          options,
          callback,
        ),
      );
    }
    return this.carry<ResponseOf<M>>(method, origin, (traceparent, callback) => {
      let payload: Buffer;
      try {
        payload = definition.requestSerialize(request);
      } catch (error) {
        callback(
          Object.assign(error instanceof Error ? error : new Error(String(error)), {
            code: grpc.status.INTERNAL,
            details: "Request message serialization failure",
            metadata: new grpc.Metadata(),
          }),
        );
        return;
      }
      session.call(method, payload, origin.requestId, traceparent, this.deadlineMs, (error, reply) => {
        if (error !== null) callback(error);
        else if (reply === undefined) callback(null, undefined);
        else callback(null, definition.responseDeserialize(reply));
      });
    });
  }
}

export interface Clients {
  wallet: WalletApi;
  /** Every engine process, each call routed to the one owning its account (gateway/engine-router.ts). */
  engine: EngineRouter;
  /** The catalogue reads served from memory (gateway/v1/catalogue-cache.ts); absent: each asks the engine. */
  catalogue?: CatalogueReads;
  close(): void;
}

/**
 * `engineTargets[k]` is engine k's host:port, or its replicas' separated by `|` (ENGINE_GRPC_TARGETS; one entry
 * for a single engine). `hold`: the hold of calls to a partition in hand-over (none when absent). `metrics`:
 * client-side latency by method and code (`grpc_client_handling_seconds`); none when metrics are off.
 * `engineSession` false makes every engine call a unary call instead of a frame on the session stream.
 * `deadlineMs`: every call's deadline (GRPC_DEADLINE_MS). `credentials`: TLS when GRPC_TLS_CA_FILE is set
 * (kernel/grpc.ts channelCredentials), else plaintext.
 */
export function createClients(
  walletTarget: string,
  engineTargets: readonly string[],
  internalToken: string | undefined,
  metrics?: RpcMetrics,
  engineSession = true,
  deadlineMs = DEFAULT_DEADLINE_MS,
  credentials: grpc.ChannelCredentials = grpc.credentials.createInsecure(),
  hold?: HoldSettings,
): Clients {
  // ValidateApiKey, the hottest call, with the hand-written codec (kernel/wallet-codec.ts).
  const wallet = createWalletClient(walletTarget, credentials, CHANNEL_OPTIONS);
  const Engine = loadEngineProto().engine.v1.Engine;
  // An engine that died is 503 until its channel reconnects: retry a restarted engine within 2 s, not minutes.
  const engineOptions = { ...CHANNEL_OPTIONS, "grpc.max_reconnect_backoff_ms": 2_000 };
  // Entry k of ENGINE_GRPC_TARGETS: engine k's replicas, `|`-separated (docs/scale-out.md, "Hand-over").
  const replicas = engineTargets.map((entry) => entry.split("|").map((target) => target.trim()));
  const engines = replicas.flat().map((target) => new grpc.Client(target, credentials, engineOptions));
  const sessions = engines.map((client) =>
    engineSession
      ? new SessionClient(client, ENGINE_SESSION_PATH, () => outgoingMetadata(undefined, internalToken))
      : undefined,
  );
  const apis = engines.map(
    (client, k) => new EngineApi(client, Engine.service, internalToken, metrics, sessions[k], deadlineMs),
  );
  let next = 0;
  const targets = replicas.map((entry) => entry.map(() => ({ api: apis[next], session: sessions[next++] })));
  const router = new EngineRouter(
    targets.map((entry) => entry.map(({ api }) => api as EngineApi)),
    hold,
  );
  // An engine ends its session streams cleanly only when it stops: its partitions are being handed over.
  targets.forEach((entry, index) => {
    for (const { session } of entry) {
      if (session !== undefined)
        session.onServerEnd = () => {
          router.handingOver(index);
        };
    }
  });
  return {
    wallet: new WalletApi(wallet, internalToken, metrics, deadlineMs),
    engine: router,
    close() {
      wallet.close();
      for (const session of sessions) session?.close();
      for (const engine of engines) engine.close();
    },
  };
}

/** grpc.health.v1.Health/Check, with its status as the enum's name. */
let healthCheck: grpc.MethodDefinition<{ service: string }, { status?: string }> | undefined;

function healthCheckMethod(): grpc.MethodDefinition<{ service: string }, { status?: string }> {
  healthCheck ??= (
    protoLoader.loadSync(healthProtoPath, { enums: String })[
      "grpc.health.v1.Health"
    ] as unknown as grpc.ServiceDefinition<{
      Check: grpc.MethodDefinition<{ service: string }, { status?: string }>;
    }>
  ).Check;
  return healthCheck;
}

/**
 * Resolves true when the process behind `client` answers gRPC health SERVING (kernel/grpc-standard.ts) within
 * `timeoutMs`: an engine that listens while it waits for its partition leases (engine/listeners.ts) does not.
 */
export async function serving(client: grpc.Client, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  if (!(await reachable(client, timeoutMs))) return false;
  const check = healthCheckMethod();
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      check.path,
      check.requestSerialize,
      check.responseDeserialize,
      { service: "" },
      new grpc.Metadata(),
      { deadline },
      (error, reply) => {
        resolve(error === null && reply?.status === "SERVING");
      },
    );
  });
}

/** Resolves true when the client's channel connects within `timeoutMs`. */
export async function reachable(client: grpc.Client, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    client.waitForReady(Date.now() + timeoutMs, (error) => {
      resolve(error === undefined || error === null);
    });
  });
}
