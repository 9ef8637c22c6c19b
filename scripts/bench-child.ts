// What every benchmark child process shares: messages to the parent (IPC, or stdout when run by hand), a
// role picked by the first argument, a clean stop on SIGTERM, SIGINT or the parent going away, and the raw-bytes
// gRPC service of the baselines.
import type * as grpc from "@grpc/grpc-js";

/** The (de)serializer of raw bytes: the bytes as they are. */
export const rawBytes = (value: Buffer): Buffer => value;

/** A hand-made one-method service definition: raw bytes in and out, so a baseline pays no protobuf work. */
export function rawBytesService(method: string, path: string): grpc.ServiceDefinition {
  return {
    [method]: {
      path,
      requestStream: false,
      responseStream: false,
      requestSerialize: rawBytes,
      requestDeserialize: rawBytes,
      responseSerialize: rawBytes,
      responseDeserialize: rawBytes,
    },
  };
}

/** Sends a message to the benchmark parent. */
export function report(message: object): void {
  if (process.send === undefined) process.stdout.write(JSON.stringify(message) + "\n");
  else process.send(message);
}

/** Starts the role named by argv[2]; each role resolves with its stop function. Exit code 1 on failure. */
export function serveRole(roles: Record<string, () => Promise<() => Promise<void>>>): void {
  const role = process.argv[2] ?? "";
  const start = Object.hasOwn(roles, role) ? roles[role] : undefined;
  const started =
    start === undefined
      ? Promise.reject(new Error(`unknown role ${role}: use ${Object.keys(roles).join(", ")}`))
      : start();
  started.then(
    (stop) => {
      let stopping = false;
      const finish = (): void => {
        if (stopping) return;
        stopping = true;
        stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.on("SIGTERM", finish);
      process.on("SIGINT", finish);
      process.on("disconnect", finish);
    },
    (error: unknown) => {
      report({ type: "failed", message: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    },
  );
}
