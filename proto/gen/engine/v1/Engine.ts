// Original file: proto/engine/v1/engine.proto

import type * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import type {
  ListPlansRequest as _engine_v1_ListPlansRequest,
  ListPlansRequest__Output as _engine_v1_ListPlansRequest__Output,
} from "../../engine/v1/ListPlansRequest.js";
import type {
  ListPlansResponse as _engine_v1_ListPlansResponse,
  ListPlansResponse__Output as _engine_v1_ListPlansResponse__Output,
} from "../../engine/v1/ListPlansResponse.js";
import type {
  ListTickersRequest as _engine_v1_ListTickersRequest,
  ListTickersRequest__Output as _engine_v1_ListTickersRequest__Output,
} from "../../engine/v1/ListTickersRequest.js";
import type {
  ListTickersResponse as _engine_v1_ListTickersResponse,
  ListTickersResponse__Output as _engine_v1_ListTickersResponse__Output,
} from "../../engine/v1/ListTickersResponse.js";

export interface EngineClient extends grpc.Client {
  ListPlans(
    argument: _engine_v1_ListPlansRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListPlansResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListPlans(
    argument: _engine_v1_ListPlansRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListPlansResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListPlans(
    argument: _engine_v1_ListPlansRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListPlansResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListPlans(
    argument: _engine_v1_ListPlansRequest,
    callback: grpc.requestCallback<_engine_v1_ListPlansResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPlans(
    argument: _engine_v1_ListPlansRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListPlansResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPlans(
    argument: _engine_v1_ListPlansRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListPlansResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPlans(
    argument: _engine_v1_ListPlansRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListPlansResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPlans(
    argument: _engine_v1_ListPlansRequest,
    callback: grpc.requestCallback<_engine_v1_ListPlansResponse__Output>,
  ): grpc.ClientUnaryCall;

  ListTickers(
    argument: _engine_v1_ListTickersRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListTickersResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListTickers(
    argument: _engine_v1_ListTickersRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListTickersResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListTickers(
    argument: _engine_v1_ListTickersRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListTickersResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListTickers(
    argument: _engine_v1_ListTickersRequest,
    callback: grpc.requestCallback<_engine_v1_ListTickersResponse__Output>,
  ): grpc.ClientUnaryCall;
  listTickers(
    argument: _engine_v1_ListTickersRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListTickersResponse__Output>,
  ): grpc.ClientUnaryCall;
  listTickers(
    argument: _engine_v1_ListTickersRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListTickersResponse__Output>,
  ): grpc.ClientUnaryCall;
  listTickers(
    argument: _engine_v1_ListTickersRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListTickersResponse__Output>,
  ): grpc.ClientUnaryCall;
  listTickers(
    argument: _engine_v1_ListTickersRequest,
    callback: grpc.requestCallback<_engine_v1_ListTickersResponse__Output>,
  ): grpc.ClientUnaryCall;
}

export interface EngineHandlers extends grpc.UntypedServiceImplementation {
  ListPlans: grpc.handleUnaryCall<_engine_v1_ListPlansRequest__Output, _engine_v1_ListPlansResponse>;

  ListTickers: grpc.handleUnaryCall<_engine_v1_ListTickersRequest__Output, _engine_v1_ListTickersResponse>;
}

export interface EngineDefinition extends grpc.ServiceDefinition {
  ListPlans: MethodDefinition<
    _engine_v1_ListPlansRequest,
    _engine_v1_ListPlansResponse,
    _engine_v1_ListPlansRequest__Output,
    _engine_v1_ListPlansResponse__Output
  >;
  ListTickers: MethodDefinition<
    _engine_v1_ListTickersRequest,
    _engine_v1_ListTickersResponse,
    _engine_v1_ListTickersRequest__Output,
    _engine_v1_ListTickersResponse__Output
  >;
}
