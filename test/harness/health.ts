// A grpc.health.v1.Health client for tests (the standard service, kernel/grpc-standard.ts), from the proto
// that grpc-health-check ships.
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { protoPath as healthProtoPath } from "grpc-health-check";

export interface HealthClient extends grpc.Client {
  check(
    request: { service: string },
    metadata: grpc.Metadata,
    callback: (error: grpc.ServiceError | null, response?: { status: string }) => void,
  ): void;
  watch(request: { service: string }): grpc.ClientReadableStream<{ status: string }>;
}

export const HealthClient = (
  grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath, { enums: String })) as unknown as {
    grpc: { health: { v1: { Health: new (target: string, credentials: grpc.ChannelCredentials) => HealthClient } } };
  }
).grpc.health.v1.Health;
