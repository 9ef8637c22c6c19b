// One error registry for the whole service: each code knows its gRPC status, HTTP status and wire body.
// Services throw `ServiceError`; the gRPC layer encodes it; the gateway maps it back. Nobody else invents errors.
import { Metadata, status, type ServiceError as GrpcServiceError, type StatusObject } from "@grpc/grpc-js";

export const ERROR_CODES = {
  invalid_payload: { grpc: status.INVALID_ARGUMENT, http: 400, wire: "invalid_payload" },
  unauthorized: { grpc: status.UNAUTHENTICATED, http: 401, wire: "unauthorized" },
  ip_not_whitelisted: { grpc: status.PERMISSION_DENIED, http: 403, wire: "IP not whitelisted for this API key" },
  permission_denied: { grpc: status.PERMISSION_DENIED, http: 403, wire: "permission_denied" },
  not_found: { grpc: status.NOT_FOUND, http: 404, wire: "not_found" },
  conflict: { grpc: status.ABORTED, http: 409, wire: "conflict" },
  key_limit_reached: { grpc: status.ABORTED, http: 409, wire: "key_limit_reached" },
  payload_too_large: { grpc: status.INVALID_ARGUMENT, http: 413, wire: "invalid_payload" },
  rate_limited: { grpc: status.RESOURCE_EXHAUSTED, http: 429, wire: "rate_limited" },
  engine_error: { grpc: status.INTERNAL, http: 500, wire: "engine_error" },
  /** The engine owning the account's partition is down or does not hold its lease (docs/scale-out.md). */
  engine_unavailable: { grpc: status.UNAVAILABLE, http: 503, wire: "engine_unavailable" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface Issue {
  path: string;
  message: string;
}

/** Extra fields carried in the wire body next to `error` (for example `issues`, `limit`, `client_id`). */
export type ErrorFields = Record<string, unknown>;

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly fields: ErrorFields;

  constructor(code: ErrorCode, fields: ErrorFields = {}, message?: string) {
    super(message ?? code);
    this.name = "ServiceError";
    this.code = code;
    this.fields = fields;
  }

  static invalid(issues: Issue[]): ServiceError {
    return new ServiceError("invalid_payload", { issues }, issues.map((i) => `${i.path}: ${i.message}`).join("; "));
  }

  /** The JSON body a REST client sees. */
  body(): Record<string, unknown> {
    return { error: ERROR_CODES[this.code].wire, ...this.fields };
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }
}

/** Trailing-metadata key that carries the registry code and fields across a gRPC hop. */
export const ERROR_METADATA_KEY = "fts-error-bin";

export function toGrpcStatus(error: unknown): Partial<StatusObject> {
  const serviceError = error instanceof ServiceError ? error : new ServiceError("engine_error");
  const metadata = new Metadata();
  metadata.set(
    ERROR_METADATA_KEY,
    Buffer.from(JSON.stringify({ code: serviceError.code, fields: serviceError.fields }), "utf8"),
  );
  return { code: ERROR_CODES[serviceError.code].grpc, details: serviceError.message, metadata };
}

const FALLBACK_BY_GRPC: Partial<Record<number, ErrorCode>> = {
  [status.INVALID_ARGUMENT]: "invalid_payload",
  [status.UNAUTHENTICATED]: "unauthorized",
  [status.PERMISSION_DENIED]: "permission_denied",
  [status.NOT_FOUND]: "not_found",
  [status.ALREADY_EXISTS]: "conflict",
  [status.ABORTED]: "conflict",
  [status.RESOURCE_EXHAUSTED]: "rate_limited",
};

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}

/** Rebuilds the registry error from a failed gRPC call (the gateway's only mapping). */
export function fromGrpcError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const grpcError = error as Partial<GrpcServiceError>;
  const raw = grpcError.metadata?.get(ERROR_METADATA_KEY)[0];
  if (Buffer.isBuffer(raw)) {
    try {
      const decoded = JSON.parse(raw.toString("utf8")) as { code?: unknown; fields?: unknown };
      if (isErrorCode(decoded.code)) {
        const fields = typeof decoded.fields === "object" && decoded.fields !== null ? decoded.fields : {};
        return new ServiceError(decoded.code, fields as ErrorFields, grpcError.details);
      }
    } catch {
      // fall through to the status-code mapping
    }
  }
  const code = typeof grpcError.code === "number" ? FALLBACK_BY_GRPC[grpcError.code] : undefined;
  if (code === "invalid_payload") {
    return ServiceError.invalid([{ path: "", message: grpcError.details ?? "invalid request" }]);
  }
  return new ServiceError(code ?? "engine_error", {}, grpcError.details);
}
