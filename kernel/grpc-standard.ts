// The two standard gRPC services the internal listeners (wallet, engine) serve next to their own (docs/grpc.md):
//
// - grpc.health.v1.Health (the grpc-health-check package: Check, Watch, List), answering for "" (the whole
//   process) and for each service the server carries. Its status follows the process's readiness, read from the
//   same check as its /readyz (kernel/metrics.ts): NOT_SERVING until the process has started, then SERVING while
//   that check passes, and NOT_SERVING again from the moment the process begins to stop. A Check reads readiness
//   afresh (calls at the same time share one read); an open Watch re-reads it every HEALTH_POLL_MS.
// - Server reflection (@grpc/reflection, v1 and v1alpha) over the same proto definitions the server loads, plus
//   the health service's own.
//
// The internal token: Health answers without it, since Kubernetes' gRPC probes and service meshes send no
// metadata and it tells nothing but SERVING or not. Reflection requires it like every internal method: it is a
// map of every internal method and message (key management, webhook secrets), and every reflection client can
// send the header (grpcurl -H, grpcui -H), while a caller without the token could call none of them anyway.
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { ReflectionService } from "@grpc/reflection";
import { HealthImplementation, protoPath as healthProtoPath, type ServingStatus } from "grpc-health-check";
import { internalTokenCheck } from "./grpc.js";

/** How often an open Watch re-reads readiness (a Check always reads it afresh). */
export const HEALTH_POLL_MS = 5_000;

export interface StandardServicesOptions {
  /** The proto definitions the server's own services come from (kernel/grpc.ts `protoDefinition`). */
  definition: protoLoader.PackageDefinition;
  /** Whether the process can serve: the same answer as its /readyz. A rejection counts as not ready. */
  ready: () => Promise<boolean>;
  internalToken: string | undefined;
  /** How often an open Watch re-reads readiness; default HEALTH_POLL_MS. */
  pollMs?: number;
}

export interface StandardServices {
  /** The health names answered: "" and every service of the definition. */
  readonly names: readonly string[];
  /** The process has started: from here health answers what `ready` says. */
  started(): void;
  /** The process is stopping: NOT_SERVING from here on, and every open Watch or reflection stream ends. */
  stopping(): void;
}

/** A server stream that can be ended from outside its handler. */
type OpenStream = grpc.ServerWritableStream<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>;

interface Added {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
}

/** What a package's `addToServer` adds, caught instead of added (so its handlers can be wrapped first). */
function servicesOf(addToServer: (server: Pick<grpc.Server, "addService">) => void): Added[] {
  const added: Added[] = [];
  addToServer({
    addService(definition, implementation) {
      added.push({ definition, implementation });
    },
  });
  return added;
}

/** The full names of the services of a package definition (its entries that are neither messages nor enums). */
export function serviceNames(definition: protoLoader.PackageDefinition): string[] {
  return Object.entries(definition)
    .filter(([, entry]) => !("format" in entry))
    .map(([name]) => name);
}

/** grpc.health.v1's own definition, loaded by its package-relative name (reflection names files by it). */
function healthDefinition(): protoLoader.PackageDefinition {
  const includeDir = path.resolve(path.dirname(healthProtoPath), "..", "..");
  return protoLoader.loadSync(path.relative(includeDir, healthProtoPath), { includeDirs: [includeDir] });
}

type Phase = "starting" | "started" | "stopping";

/** One status for every name, published to the package's map (and its watchers) only when it changes. */
class ReadinessHealth {
  private phase: Phase = "starting";
  private status: ServingStatus = "NOT_SERVING";
  private reading: Promise<void> | undefined;
  private poll: NodeJS.Timeout | undefined;
  private readonly watches = new Set<OpenStream>();
  readonly health: HealthImplementation;

  constructor(
    readonly names: readonly string[],
    private readonly ready: () => Promise<boolean>,
    private readonly pollMs: number,
  ) {
    this.health = new HealthImplementation(Object.fromEntries(names.map((name) => [name, this.status])));
  }

  private publish(status: ServingStatus): void {
    if (status === this.status) return;
    this.status = status;
    for (const name of this.names) this.health.setStatus(name, status);
  }

  /** Reads readiness and publishes it; never rejects. Calls while a read is under way share it. */
  refresh(): Promise<void> {
    if (this.phase !== "started") {
      this.publish("NOT_SERVING");
      return Promise.resolve();
    }
    this.reading ??= this.ready()
      .catch(() => false)
      .then((ok) => {
        this.reading = undefined;
        if (this.phase === "started") this.publish(ok ? "SERVING" : "NOT_SERVING");
      });
    return this.reading;
  }

  enter(phase: "started" | "stopping"): void {
    this.phase = phase;
    void this.refresh();
  }

  /** A Watch call: re-read every pollMs while any is open. */
  watching(call: OpenStream): void {
    this.watches.add(call);
    this.poll ??= setInterval(() => void this.refresh(), this.pollMs).unref();
    const done = (): void => {
      this.watches.delete(call);
      if (this.watches.size > 0 || this.poll === undefined) return;
      clearInterval(this.poll);
      this.poll = undefined;
    };
    call.once("cancelled", done);
    call.once("finish", done);
  }

  endWatches(): void {
    for (const call of [...this.watches]) if (!call.writableEnded) call.end();
    clearInterval(this.poll);
    this.poll = undefined;
  }
}

/** The health service's handlers, with Check reading readiness first and Watch followed while open. */
function healthService(readiness: ReadinessHealth): Added[] {
  return servicesOf((server) => {
    readiness.health.addToServer(server);
  }).map(({ definition, implementation }) => {
    const check = implementation.check as grpc.handleUnaryCall<unknown, unknown>;
    const watch = implementation.watch as grpc.handleServerStreamingCall<unknown, unknown>;
    return {
      definition,
      implementation: {
        ...implementation,
        check: (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
          void readiness.refresh().then(() => {
            check(call, callback);
          });
        },
        watch: (call: grpc.ServerWritableStream<unknown, unknown>) => {
          readiness.watching(call);
          watch(call);
          void readiness.refresh();
        },
      },
    };
  });
}

/** Reflection's handlers (one bidirectional stream per version), each behind the internal token. */
function reflectionServices(
  definition: protoLoader.PackageDefinition,
  internalToken: string | undefined,
  open: Set<OpenStream>,
): Added[] {
  const authorized = internalTokenCheck(internalToken);
  const reflection = new ReflectionService(definition);
  return servicesOf((server) => {
    reflection.addToServer(server);
  }).map(({ definition: service, implementation }) => ({
    definition: service,
    implementation: Object.fromEntries(
      Object.entries(implementation).map(([name, handler]) => {
        const stream = handler as grpc.handleBidiStreamingCall<unknown, unknown>;
        const guarded = (call: grpc.ServerDuplexStream<unknown, unknown>): void => {
          if (!authorized(call.metadata)) {
            // grpc-js turns an emitted error into the call's status and ends it.
            call.emit("error", { code: grpc.status.UNAUTHENTICATED, details: "internal token required" });
            return;
          }
          open.add(call);
          call.once("finish", () => open.delete(call));
          call.once("cancelled", () => open.delete(call));
          stream(call);
        };
        return [name, guarded];
      }),
    ),
  }));
}

/**
 * Adds grpc.health.v1.Health and server reflection to `server` (before it is bound). Health starts NOT_SERVING;
 * the process calls `started()` once it is up and `stopping()` first thing when it stops.
 */
export function addStandardServices(server: grpc.Server, options: StandardServicesOptions): StandardServices {
  const names = ["", ...serviceNames(options.definition)];
  const readiness = new ReadinessHealth(names, options.ready, options.pollMs ?? HEALTH_POLL_MS);
  const reflections = new Set<OpenStream>();
  const reflected = { ...options.definition, ...healthDefinition() };
  for (const { definition, implementation } of [
    ...healthService(readiness),
    ...reflectionServices(reflected, options.internalToken, reflections),
  ]) {
    server.addService(definition, implementation);
  }
  return {
    names,
    started() {
      readiness.enter("started");
    },
    stopping() {
      readiness.enter("stopping");
      readiness.endWatches();
      for (const call of [...reflections]) if (!call.writableEnded) call.end();
    },
  };
}
