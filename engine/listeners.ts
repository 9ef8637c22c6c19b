// The engine's listeners: engine.v1 + market.v1 + engine.v1.EngineSession (with gRPC health and reflection) on
// HOST:ENGINE_GRPC_PORT, /healthz, /readyz and /metrics on ENGINE_METRICS_PORT. They are bound before the engine
// serves (docs/scale-out.md, "Standbys"): while it waits for its partition leases (a successor, a standby) and
// loads them, every call, session stream and account stream is refused `engine_not_serving` before anything
// runs, as a draining engine refuses, gRPC health and /readyz say not serving, /healthz and /metrics answer.
// `serve` hands the same ports to the engine's handlers and readiness at once: the port never closes between.
import * as grpc from "@grpc/grpc-js";
import type { Registry } from "prom-client";
import { ServiceError, toGrpcStatus } from "../kernel/errors.js";
import {
  bindServer,
  CHANNEL_OPTIONS,
  ENGINE_PROTOS,
  internalTokenCheck,
  onShutdown,
  protoDefinition,
  serverCredentials,
  shutdownServer,
} from "../kernel/grpc.js";
import { addStandardServices } from "../kernel/grpc-standard.js";
import { startAdminServer, type AdminServer } from "../kernel/metrics.js";
import type { EngineSettings } from "./config.js";
import { engineServiceDefinitions, type EngineServiceName, type EngineServices } from "./server.js";

/** How long in-flight calls may run after a stop request before they are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

/** What every call gets while the engine waits: it did not run (the gateway holds it or moves on). */
const WAITING = toGrpcStatus(new ServiceError("engine_not_serving", {}, "engine waiting for its partition leases"));

const UNAUTHENTICATED: Partial<grpc.StatusObject> = {
  code: grpc.status.UNAUTHENTICATED,
  details: "internal token required",
};

export interface EngineListeners {
  ports: { grpc: number; admin: number };
  /** From here calls reach `services`, and /readyz (and health, once `started`) answer `ready`. Once only. */
  serve(services: EngineServices, ready: () => Promise<boolean>): void;
  /** The engine is up: gRPC health answers what `ready` says. */
  started: () => void;
  /** Health says NOT_SERVING (the first step of stopping). */
  unready: () => void;
  /** Ends the services' long-lived calls, drains the gRPC server, closes the admin server. Idempotent. */
  stop: () => Promise<void>;
}

/** A refusal of every call of a service (after the internal token check), whatever the method's shape. */
function refusing(definition: grpc.ServiceDefinition, internalToken: string | undefined) {
  const authorized = internalTokenCheck(internalToken);
  const refusal = (metadata: grpc.Metadata): Partial<grpc.StatusObject> =>
    authorized(metadata) ? WAITING : UNAUTHENTICATED;
  return Object.fromEntries(
    Object.entries(definition).map(([name, method]) => {
      const handler = method.responseStream
        ? (call: grpc.ServerWritableStream<unknown, unknown>) => {
            // grpc-js turns an emitted error into the call's status and ends it.
            call.emit("error", refusal(call.metadata));
          }
        : (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
            callback(refusal(call.metadata));
          };
      return [name, handler];
    }),
  ) as grpc.UntypedServiceImplementation;
}

/**
 * Binds the engine's ports with every call refused `engine_not_serving` until `serve`: each method's handler
 * looks up the handlers served at the time of the call.
 */
export async function openListeners(settings: EngineSettings, registry: Registry): Promise<EngineListeners> {
  const server = new grpc.Server(CHANNEL_OPTIONS);
  const definitions = engineServiceDefinitions();
  const names = Object.keys(definitions) as EngineServiceName[];
  let handlers = Object.fromEntries(
    names.map((name) => [name, refusing(definitions[name], settings.INTERNAL_TOKEN)]),
  ) as Record<EngineServiceName, grpc.UntypedServiceImplementation>;
  let ready = (): Promise<boolean> => Promise.resolve(false);
  let drain = (): void => undefined;
  for (const name of names) {
    const implementation = Object.fromEntries(
      Object.keys(definitions[name]).map((method) => [
        method,
        (...args: unknown[]): unknown => (handlers[name][method] as (...args: unknown[]) => unknown)(...args),
      ]),
    );
    server.addService(definitions[name], implementation);
  }
  const readiness = (): Promise<boolean> => ready();
  const health = addStandardServices(server, {
    definition: protoDefinition(ENGINE_PROTOS),
    ready: readiness,
    internalToken: settings.INTERNAL_TOKEN,
  });
  onShutdown(server, () => {
    drain();
  });
  let grpcPort: number;
  let admin: AdminServer;
  try {
    grpcPort = await bindServer(
      server,
      settings.HOST,
      settings.ENGINE_GRPC_PORT,
      serverCredentials(settings.GRPC_TLS_CERT_FILE, settings.GRPC_TLS_KEY_FILE),
    );
    admin = await startAdminServer(registry, settings.HOST, settings.ENGINE_METRICS_PORT, readiness);
  } catch (error) {
    server.forceShutdown();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    ports: { grpc: grpcPort, admin: admin.port },
    serve(services, serving) {
      handlers = services.handlers;
      drain = () => {
        services.drain();
      };
      ready = serving;
    },
    started() {
      health.started();
    },
    unready() {
      health.stopping();
    },
    stop() {
      stopping ??= (async () => {
        health.stopping();
        await shutdownServer(server, SHUTDOWN_GRACE_MS);
        await admin.close();
      })();
      return stopping;
    },
  };
}
