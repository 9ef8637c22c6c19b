// A gRPC client that knows nothing of this repository's .proto files: it asks a server's reflection service
// (grpc.reflection.v1, the standard one grpcurl speaks) which services it carries and for the descriptors of
// the files that define them, and builds its stubs from those answers alone, with proto-loader.
import { createRequire } from "node:module";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

/** The standard reflection.proto, as the @grpc/reflection package ships it. */
const REFLECTION_PROTO = path.resolve(
  path.dirname(createRequire(import.meta.url).resolve("@grpc/reflection")),
  "..",
  "proto",
  "grpc",
  "reflection",
  "v1",
  "reflection.proto",
);

interface ReflectionRequest {
  list_services?: string;
  file_containing_symbol?: string;
}

interface ReflectionResponse {
  list_services_response?: { service: { name: string }[] } | null;
  file_descriptor_response?: { file_descriptor_proto: Buffer[] } | null;
  error_response?: { error_code: number; error_message: string } | null;
}

type ReflectionClient = grpc.Client & {
  ServerReflectionInfo(metadata: grpc.Metadata): grpc.ClientDuplexStream<ReflectionRequest, ReflectionResponse>;
};

export function reflectionClient(address: string): ReflectionClient {
  const loaded = grpc.loadPackageDefinition(
    protoLoader.loadSync(REFLECTION_PROTO, { keepCase: true, defaults: false, oneofs: true }),
  ) as unknown as {
    grpc: { reflection: { v1: { ServerReflection: new (a: string, c: grpc.ChannelCredentials) => ReflectionClient } } };
  };
  return new loaded.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure());
}

/** One request on its own ServerReflectionInfo stream; rejects with the call's status or the error response. */
function ask(
  client: ReflectionClient,
  metadata: grpc.Metadata,
  request: ReflectionRequest,
): Promise<ReflectionResponse> {
  return new Promise((resolve, reject) => {
    const call = client.ServerReflectionInfo(metadata);
    call.on("data", (response: ReflectionResponse) => {
      call.end();
      if (response.error_response) reject(new Error(response.error_response.error_message));
      else resolve(response);
    });
    call.on("error", reject);
    call.write(request);
  });
}

/** ListServices: the full names of the services the server says it carries. */
export async function listServices(client: ReflectionClient, metadata: grpc.Metadata): Promise<string[]> {
  const response = await ask(client, metadata, { list_services: "*" });
  return (response.list_services_response?.service ?? []).map((service) => service.name);
}

/** Encodes FileDescriptorProto bytes as a FileDescriptorSet (field 1, repeated, length-delimited). */
function descriptorSet(files: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    const header = [0x0a];
    for (let length = file.length; ; length >>>= 7) {
      if (length < 0x80) {
        header.push(length);
        break;
      }
      header.push((length & 0x7f) | 0x80);
    }
    parts.push(Buffer.from(header), file);
  }
  return Buffer.concat(parts);
}

/**
 * A client of `service` (a full name, e.g. `wallet.v1.Wallet`) built only from what the server's reflection
 * answers: the descriptors of the file that defines it and of the files it imports.
 */
export async function clientFromReflection(
  address: string,
  metadata: grpc.Metadata,
  service: string,
): Promise<grpc.Client & Record<string, unknown>> {
  const reflection = reflectionClient(address);
  try {
    const response = await ask(reflection, metadata, { file_containing_symbol: service });
    const files = response.file_descriptor_response?.file_descriptor_proto ?? [];
    const definition = protoLoader.loadFileDescriptorSetFromBuffer(descriptorSet(files), {
      keepCase: true,
      longs: Number,
      enums: String,
      defaults: true,
    });
    const constructor = definition[service];
    if (constructor === undefined || "format" in constructor) throw new Error(`no service ${service} in the answer`);
    const Client = grpc.makeGenericClientConstructor(constructor, service);
    return new Client(address, grpc.credentials.createInsecure());
  } finally {
    reflection.close();
  }
}

/** Promise form of a unary call on a client built from reflection. */
export function callByName<Res>(
  client: grpc.Client & Record<string, unknown>,
  method: string,
  request: object,
  metadata: grpc.Metadata,
): Promise<Res> {
  const fn = client[method];
  if (typeof fn !== "function") return Promise.reject(new Error(`no method ${method}`));
  return new Promise((resolve, reject) => {
    (fn as (r: object, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, v?: Res) => void) => void).call(
      client,
      request,
      metadata,
      (error, value) => {
        if (error) reject(error);
        else resolve(value as Res);
      },
    );
  });
}
