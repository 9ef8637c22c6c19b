// Original file: proto/market/v1/market.proto

import type * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import type {
  PushPricesRequest as _market_v1_PushPricesRequest,
  PushPricesRequest__Output as _market_v1_PushPricesRequest__Output,
} from "../../market/v1/PushPricesRequest.js";
import type {
  PushPricesResponse as _market_v1_PushPricesResponse,
  PushPricesResponse__Output as _market_v1_PushPricesResponse__Output,
} from "../../market/v1/PushPricesResponse.js";
import type {
  SetCalendarRequest as _market_v1_SetCalendarRequest,
  SetCalendarRequest__Output as _market_v1_SetCalendarRequest__Output,
} from "../../market/v1/SetCalendarRequest.js";
import type {
  SetCalendarResponse as _market_v1_SetCalendarResponse,
  SetCalendarResponse__Output as _market_v1_SetCalendarResponse__Output,
} from "../../market/v1/SetCalendarResponse.js";

export interface MarketDataClient extends grpc.Client {
  PushPrices(
    argument: _market_v1_PushPricesRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_market_v1_PushPricesResponse__Output>,
  ): grpc.ClientUnaryCall;
  PushPrices(
    argument: _market_v1_PushPricesRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_market_v1_PushPricesResponse__Output>,
  ): grpc.ClientUnaryCall;
  PushPrices(
    argument: _market_v1_PushPricesRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_market_v1_PushPricesResponse__Output>,
  ): grpc.ClientUnaryCall;
  PushPrices(
    argument: _market_v1_PushPricesRequest,
    callback: grpc.requestCallback<_market_v1_PushPricesResponse__Output>,
  ): grpc.ClientUnaryCall;
  pushPrices(
    argument: _market_v1_PushPricesRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_market_v1_PushPricesResponse__Output>,
  ): grpc.ClientUnaryCall;
  pushPrices(
    argument: _market_v1_PushPricesRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_market_v1_PushPricesResponse__Output>,
  ): grpc.ClientUnaryCall;
  pushPrices(
    argument: _market_v1_PushPricesRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_market_v1_PushPricesResponse__Output>,
  ): grpc.ClientUnaryCall;
  pushPrices(
    argument: _market_v1_PushPricesRequest,
    callback: grpc.requestCallback<_market_v1_PushPricesResponse__Output>,
  ): grpc.ClientUnaryCall;

  SetCalendar(
    argument: _market_v1_SetCalendarRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_market_v1_SetCalendarResponse__Output>,
  ): grpc.ClientUnaryCall;
  SetCalendar(
    argument: _market_v1_SetCalendarRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_market_v1_SetCalendarResponse__Output>,
  ): grpc.ClientUnaryCall;
  SetCalendar(
    argument: _market_v1_SetCalendarRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_market_v1_SetCalendarResponse__Output>,
  ): grpc.ClientUnaryCall;
  SetCalendar(
    argument: _market_v1_SetCalendarRequest,
    callback: grpc.requestCallback<_market_v1_SetCalendarResponse__Output>,
  ): grpc.ClientUnaryCall;
  setCalendar(
    argument: _market_v1_SetCalendarRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_market_v1_SetCalendarResponse__Output>,
  ): grpc.ClientUnaryCall;
  setCalendar(
    argument: _market_v1_SetCalendarRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_market_v1_SetCalendarResponse__Output>,
  ): grpc.ClientUnaryCall;
  setCalendar(
    argument: _market_v1_SetCalendarRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_market_v1_SetCalendarResponse__Output>,
  ): grpc.ClientUnaryCall;
  setCalendar(
    argument: _market_v1_SetCalendarRequest,
    callback: grpc.requestCallback<_market_v1_SetCalendarResponse__Output>,
  ): grpc.ClientUnaryCall;
}

export interface MarketDataHandlers extends grpc.UntypedServiceImplementation {
  PushPrices: grpc.handleUnaryCall<_market_v1_PushPricesRequest__Output, _market_v1_PushPricesResponse>;

  SetCalendar: grpc.handleUnaryCall<_market_v1_SetCalendarRequest__Output, _market_v1_SetCalendarResponse>;
}

export interface MarketDataDefinition extends grpc.ServiceDefinition {
  PushPrices: MethodDefinition<
    _market_v1_PushPricesRequest,
    _market_v1_PushPricesResponse,
    _market_v1_PushPricesRequest__Output,
    _market_v1_PushPricesResponse__Output
  >;
  SetCalendar: MethodDefinition<
    _market_v1_SetCalendarRequest,
    _market_v1_SetCalendarResponse,
    _market_v1_SetCalendarRequest__Output,
    _market_v1_SetCalendarResponse__Output
  >;
}
