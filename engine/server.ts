// The engine's gRPC surface: engine.v1 (catalogue, accounts, orders, webhooks) and market.v1 (price and
// calendar pushes), each family of handlers in its own file (engine/server-catalogue.ts, server-accounts.ts,
// server-orders.ts, server-order-lookups.ts, server-cancel-after.ts, server-market.ts, webhooks/handlers.ts;
// the streams in server-stream.ts). Handlers only decode, call and encode: they pick the account's shard, send
// the command or query, and shape proto messages. Ownership, rules and numbers live in the core, what a push may
// hold in engine/market/; decimal strings become numbers only at this edge.
import type * as grpc from "@grpc/grpc-js";
import { type DirectCall, loadEngineProto, loadMarketProto } from "../kernel/grpc.js";
import { ENGINE_SESSION_PATH } from "../kernel/session-codec.js";
import { sessionDefinition, sessionServer, type SessionMethod } from "../kernel/session-server.js";
import type { EngineHandlers } from "../proto/gen/engine/v1/Engine.js";
import { accountHandlers } from "./server-accounts.js";
import { cancelAfterHandlers } from "./server-cancel-after.js";
import { catalogueHandlers } from "./server-catalogue.js";
import type { EngineServerDeps } from "./server-deps.js";
import { marketHandlers } from "./server-market.js";
import { orderLookupHandlers } from "./server-order-lookups.js";
import { bulkHandlers, orderHandlers } from "./server-orders.js";
import { accountCalls } from "./server-wire.js";
import { webhookHandlers } from "./webhooks/handlers.js";
import { AccountWatches } from "./webhooks/watch.js";
import { OpenStreams, streamHandlers, type StreamDeps, type StreamMethod } from "./server-stream.js";
import { ServiceError, toGrpcStatus } from "../kernel/errors.js";

export type { AccountSlotStore, EngineServerDeps } from "./server-deps.js";

/** The `direct` entry of a handler made by unary() (every Engine method is one). */
function directOf(name: string, handler: unknown): DirectCall<unknown, unknown> {
  if (typeof handler !== "function" || !("direct" in handler) || typeof handler.direct !== "function") {
    throw new Error(`Engine.${name} is not a unary() handler`);
  }
  return handler.direct as DirectCall<unknown, unknown>;
}

/** The streaming calls' parts: without a watch hub (tests of other parts), WatchAccount is unavailable. */
function streamDeps(deps: EngineServerDeps): StreamDeps {
  return {
    watches: deps.watches ?? new AccountWatches({ source: unwatchable, store: deps.webhooks, log: deps.log }),
    catalogue: deps.catalogue,
    plans: deps.plans,
    calendar: deps.calendar,
    prices: deps.prices,
    now: deps.now,
    internalToken: deps.internalToken,
    log: deps.log,
  };
}

const unwatchable = {
  watch: (): Promise<void> => Promise.reject(new ServiceError("engine_unavailable", {}, "no account stream here")),
};

/**
 * Every unary Engine method, also as frames on one long-lived stream per gateway (kernel/session-server.ts);
 * the streaming ones are not.
 */
function sessionMethods(
  service: grpc.ServiceDefinition,
  handlers: Omit<EngineHandlers, StreamMethod>,
): Map<string, SessionMethod> {
  const methods = new Map<string, SessionMethod>();
  for (const [name, handler] of Object.entries(handlers)) {
    const definition: grpc.MethodDefinition<unknown, unknown> | undefined = service[name];
    if (definition === undefined) throw new Error(`Engine.${name} is not in the proto`);
    // The handler and the (de)serializers come from the same method: their types agree.
    methods.set(name, {
      direct: directOf(name, handler),
      requestDeserialize: definition.requestDeserialize,
      responseSerialize: definition.responseSerialize,
    });
  }
  return methods;
}

/** The services the engine's gRPC server carries, each by the name `EngineServices` gives its handlers. */
export type EngineServiceName = "engine" | "market" | "session";

/** The definitions of the engine's services (what a server registers before it has their handlers). */
export function engineServiceDefinitions(): Record<EngineServiceName, grpc.ServiceDefinition> {
  return {
    engine: loadEngineProto().engine.v1.Engine.service,
    market: loadMarketProto().market.v1.MarketData.service,
    session: sessionDefinition(ENGINE_SESSION_PATH),
  };
}

/** The handlers of the Engine, MarketData and EngineSession services, and how they end their long-lived calls. */
export interface EngineServices {
  handlers: Record<EngineServiceName, grpc.UntypedServiceImplementation>;
  /** Ends the session streams once their calls are answered, and the account streams (the server shuts down). */
  drain(): void;
}

/** The handlers of the engine's services on its parts (engine/listeners.ts serves them). */
export function engineServices(deps: EngineServerDeps): EngineServices {
  const options = {
    internalToken: deps.internalToken,
    service: "engine.v1.Engine",
    metrics: deps.metrics,
    onExpired: deps.expired,
    onError: (method: string, error: unknown, requestId: string | undefined) => {
      deps.log.error({ err: error, method, request_id: requestId }, "engine handler failed");
    },
  };
  const calls = accountCalls(deps.runtime);
  const handlers: Omit<EngineHandlers, StreamMethod> = {
    ...webhookHandlers(deps.webhooks, deps.now, options),
    ...catalogueHandlers(deps, options),
    ...accountHandlers(deps, calls, options),
    ...orderHandlers(deps.runtime, calls, options),
    ...cancelAfterHandlers(calls, options),
    ...orderLookupHandlers(deps, calls, options),
    ...bulkHandlers(calls, options),
  };
  const definitions = engineServiceDefinitions();
  const streams = new OpenStreams();
  const sessions = sessionServer(ENGINE_SESSION_PATH, sessionMethods(definitions.engine, handlers), {
    internalToken: deps.internalToken,
    log: deps.log,
    // A stopping engine runs no frame it has not started: the gateway may send it to the successor.
    refusal: toGrpcStatus(new ServiceError("engine_not_serving", {}, "engine stopping")),
  });
  return {
    handlers: {
      engine: { ...handlers, ...streamHandlers(streamDeps(deps), streams) },
      market: marketHandlers(deps, { ...options, service: "market.v1.MarketData" }),
      session: sessions.implementation,
    },
    drain() {
      sessions.drain();
      streams.endAll();
    },
  };
}
