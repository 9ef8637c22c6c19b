// Original file: proto/engine/v1/engine.proto

import type * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import type {
  SessionReply as _engine_v1_SessionReply,
  SessionReply__Output as _engine_v1_SessionReply__Output,
} from "../../engine/v1/SessionReply.js";
import type {
  SessionRequest as _engine_v1_SessionRequest,
  SessionRequest__Output as _engine_v1_SessionRequest__Output,
} from "../../engine/v1/SessionRequest.js";

export interface EngineSessionClient extends grpc.Client {
  Open(
    metadata: grpc.Metadata,
    options?: grpc.CallOptions,
  ): grpc.ClientDuplexStream<_engine_v1_SessionRequest, _engine_v1_SessionReply__Output>;
  Open(options?: grpc.CallOptions): grpc.ClientDuplexStream<_engine_v1_SessionRequest, _engine_v1_SessionReply__Output>;
  open(
    metadata: grpc.Metadata,
    options?: grpc.CallOptions,
  ): grpc.ClientDuplexStream<_engine_v1_SessionRequest, _engine_v1_SessionReply__Output>;
  open(options?: grpc.CallOptions): grpc.ClientDuplexStream<_engine_v1_SessionRequest, _engine_v1_SessionReply__Output>;
}

export interface EngineSessionHandlers extends grpc.UntypedServiceImplementation {
  Open: grpc.handleBidiStreamingCall<_engine_v1_SessionRequest__Output, _engine_v1_SessionReply>;
}

export interface EngineSessionDefinition extends grpc.ServiceDefinition {
  Open: MethodDefinition<
    _engine_v1_SessionRequest,
    _engine_v1_SessionReply,
    _engine_v1_SessionRequest__Output,
    _engine_v1_SessionReply__Output
  >;
}
