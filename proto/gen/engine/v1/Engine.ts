// Original file: proto/engine/v1/engine.proto

import type * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import type {
  Account as _engine_v1_Account,
  Account__Output as _engine_v1_Account__Output,
} from "../../engine/v1/Account.js";
import type {
  AccountRef as _engine_v1_AccountRef,
  AccountRef__Output as _engine_v1_AccountRef__Output,
} from "../../engine/v1/AccountRef.js";
import type {
  AmendOrderRequest as _engine_v1_AmendOrderRequest,
  AmendOrderRequest__Output as _engine_v1_AmendOrderRequest__Output,
} from "../../engine/v1/AmendOrderRequest.js";
import type {
  Analytics as _engine_v1_Analytics,
  Analytics__Output as _engine_v1_Analytics__Output,
} from "../../engine/v1/Analytics.js";
import type {
  Calendar as _engine_v1_Calendar,
  Calendar__Output as _engine_v1_Calendar__Output,
} from "../../engine/v1/Calendar.js";
import type {
  CancelAfter as _engine_v1_CancelAfter,
  CancelAfter__Output as _engine_v1_CancelAfter__Output,
} from "../../engine/v1/CancelAfter.js";
import type {
  CancelAllRequest as _engine_v1_CancelAllRequest,
  CancelAllRequest__Output as _engine_v1_CancelAllRequest__Output,
} from "../../engine/v1/CancelAllRequest.js";
import type {
  CancelAllResponse as _engine_v1_CancelAllResponse,
  CancelAllResponse__Output as _engine_v1_CancelAllResponse__Output,
} from "../../engine/v1/CancelAllResponse.js";
import type {
  CatalogueUpdate as _engine_v1_CatalogueUpdate,
  CatalogueUpdate__Output as _engine_v1_CatalogueUpdate__Output,
} from "../../engine/v1/CatalogueUpdate.js";
import type {
  ClientOrderRef as _engine_v1_ClientOrderRef,
  ClientOrderRef__Output as _engine_v1_ClientOrderRef__Output,
} from "../../engine/v1/ClientOrderRef.js";
import type {
  ClosePositionRequest as _engine_v1_ClosePositionRequest,
  ClosePositionRequest__Output as _engine_v1_ClosePositionRequest__Output,
} from "../../engine/v1/ClosePositionRequest.js";
import type {
  CreateAccountRequest as _engine_v1_CreateAccountRequest,
  CreateAccountRequest__Output as _engine_v1_CreateAccountRequest__Output,
} from "../../engine/v1/CreateAccountRequest.js";
import type {
  Delivery as _engine_v1_Delivery,
  Delivery__Output as _engine_v1_Delivery__Output,
} from "../../engine/v1/Delivery.js";
import type {
  FlattenResponse as _engine_v1_FlattenResponse,
  FlattenResponse__Output as _engine_v1_FlattenResponse__Output,
} from "../../engine/v1/FlattenResponse.js";
import type {
  FundingReport as _engine_v1_FundingReport,
  FundingReport__Output as _engine_v1_FundingReport__Output,
} from "../../engine/v1/FundingReport.js";
import type {
  GetCalendarRequest as _engine_v1_GetCalendarRequest,
  GetCalendarRequest__Output as _engine_v1_GetCalendarRequest__Output,
} from "../../engine/v1/GetCalendarRequest.js";
import type {
  ListBreachesResponse as _engine_v1_ListBreachesResponse,
  ListBreachesResponse__Output as _engine_v1_ListBreachesResponse__Output,
} from "../../engine/v1/ListBreachesResponse.js";
import type {
  ListClosedPositionsResponse as _engine_v1_ListClosedPositionsResponse,
  ListClosedPositionsResponse__Output as _engine_v1_ListClosedPositionsResponse__Output,
} from "../../engine/v1/ListClosedPositionsResponse.js";
import type {
  ListDeliveriesRequest as _engine_v1_ListDeliveriesRequest,
  ListDeliveriesRequest__Output as _engine_v1_ListDeliveriesRequest__Output,
} from "../../engine/v1/ListDeliveriesRequest.js";
import type {
  ListDeliveriesResponse as _engine_v1_ListDeliveriesResponse,
  ListDeliveriesResponse__Output as _engine_v1_ListDeliveriesResponse__Output,
} from "../../engine/v1/ListDeliveriesResponse.js";
import type {
  ListEventsRequest as _engine_v1_ListEventsRequest,
  ListEventsRequest__Output as _engine_v1_ListEventsRequest__Output,
} from "../../engine/v1/ListEventsRequest.js";
import type {
  ListEventsResponse as _engine_v1_ListEventsResponse,
  ListEventsResponse__Output as _engine_v1_ListEventsResponse__Output,
} from "../../engine/v1/ListEventsResponse.js";
import type {
  ListFillsResponse as _engine_v1_ListFillsResponse,
  ListFillsResponse__Output as _engine_v1_ListFillsResponse__Output,
} from "../../engine/v1/ListFillsResponse.js";
import type {
  ListOrderHistoryResponse as _engine_v1_ListOrderHistoryResponse,
  ListOrderHistoryResponse__Output as _engine_v1_ListOrderHistoryResponse__Output,
} from "../../engine/v1/ListOrderHistoryResponse.js";
import type {
  ListOrdersResponse as _engine_v1_ListOrdersResponse,
  ListOrdersResponse__Output as _engine_v1_ListOrdersResponse__Output,
} from "../../engine/v1/ListOrdersResponse.js";
import type {
  ListPlansRequest as _engine_v1_ListPlansRequest,
  ListPlansRequest__Output as _engine_v1_ListPlansRequest__Output,
} from "../../engine/v1/ListPlansRequest.js";
import type {
  ListPlansResponse as _engine_v1_ListPlansResponse,
  ListPlansResponse__Output as _engine_v1_ListPlansResponse__Output,
} from "../../engine/v1/ListPlansResponse.js";
import type {
  ListPositionsResponse as _engine_v1_ListPositionsResponse,
  ListPositionsResponse__Output as _engine_v1_ListPositionsResponse__Output,
} from "../../engine/v1/ListPositionsResponse.js";
import type {
  ListRangeRequest as _engine_v1_ListRangeRequest,
  ListRangeRequest__Output as _engine_v1_ListRangeRequest__Output,
} from "../../engine/v1/ListRangeRequest.js";
import type {
  ListTickersRequest as _engine_v1_ListTickersRequest,
  ListTickersRequest__Output as _engine_v1_ListTickersRequest__Output,
} from "../../engine/v1/ListTickersRequest.js";
import type {
  ListTickersResponse as _engine_v1_ListTickersResponse,
  ListTickersResponse__Output as _engine_v1_ListTickersResponse__Output,
} from "../../engine/v1/ListTickersResponse.js";
import type {
  ListViolationsResponse as _engine_v1_ListViolationsResponse,
  ListViolationsResponse__Output as _engine_v1_ListViolationsResponse__Output,
} from "../../engine/v1/ListViolationsResponse.js";
import type {
  OrderRef as _engine_v1_OrderRef,
  OrderRef__Output as _engine_v1_OrderRef__Output,
} from "../../engine/v1/OrderRef.js";
import type {
  OrderReply as _engine_v1_OrderReply,
  OrderReply__Output as _engine_v1_OrderReply__Output,
} from "../../engine/v1/OrderReply.js";
import type {
  OrderResponse as _engine_v1_OrderResponse,
  OrderResponse__Output as _engine_v1_OrderResponse__Output,
} from "../../engine/v1/OrderResponse.js";
import type {
  OrderTestResponse as _engine_v1_OrderTestResponse,
  OrderTestResponse__Output as _engine_v1_OrderTestResponse__Output,
} from "../../engine/v1/OrderTestResponse.js";
import type {
  PlaceOrderRequest as _engine_v1_PlaceOrderRequest,
  PlaceOrderRequest__Output as _engine_v1_PlaceOrderRequest__Output,
} from "../../engine/v1/PlaceOrderRequest.js";
import type {
  RedeliverRequest as _engine_v1_RedeliverRequest,
  RedeliverRequest__Output as _engine_v1_RedeliverRequest__Output,
} from "../../engine/v1/RedeliverRequest.js";
import type {
  SetCancelAfterRequest as _engine_v1_SetCancelAfterRequest,
  SetCancelAfterRequest__Output as _engine_v1_SetCancelAfterRequest__Output,
} from "../../engine/v1/SetCancelAfterRequest.js";
import type {
  Summary as _engine_v1_Summary,
  Summary__Output as _engine_v1_Summary__Output,
} from "../../engine/v1/Summary.js";
import type {
  Ticker as _engine_v1_Ticker,
  Ticker__Output as _engine_v1_Ticker__Output,
} from "../../engine/v1/Ticker.js";
import type {
  WatchAccountReply as _engine_v1_WatchAccountReply,
  WatchAccountReply__Output as _engine_v1_WatchAccountReply__Output,
} from "../../engine/v1/WatchAccountReply.js";
import type {
  WatchAccountRequest as _engine_v1_WatchAccountRequest,
  WatchAccountRequest__Output as _engine_v1_WatchAccountRequest__Output,
} from "../../engine/v1/WatchAccountRequest.js";
import type {
  WatchCatalogueRequest as _engine_v1_WatchCatalogueRequest,
  WatchCatalogueRequest__Output as _engine_v1_WatchCatalogueRequest__Output,
} from "../../engine/v1/WatchCatalogueRequest.js";
import type {
  WatchTickersRequest as _engine_v1_WatchTickersRequest,
  WatchTickersRequest__Output as _engine_v1_WatchTickersRequest__Output,
} from "../../engine/v1/WatchTickersRequest.js";

export interface EngineClient extends grpc.Client {
  AmendOrder(
    argument: _engine_v1_AmendOrderRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  AmendOrder(
    argument: _engine_v1_AmendOrderRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  AmendOrder(
    argument: _engine_v1_AmendOrderRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  AmendOrder(
    argument: _engine_v1_AmendOrderRequest,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  amendOrder(
    argument: _engine_v1_AmendOrderRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  amendOrder(
    argument: _engine_v1_AmendOrderRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  amendOrder(
    argument: _engine_v1_AmendOrderRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  amendOrder(
    argument: _engine_v1_AmendOrderRequest,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;

  CancelAllOrders(
    argument: _engine_v1_CancelAllRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAllResponse__Output>,
  ): grpc.ClientUnaryCall;
  CancelAllOrders(
    argument: _engine_v1_CancelAllRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_CancelAllResponse__Output>,
  ): grpc.ClientUnaryCall;
  CancelAllOrders(
    argument: _engine_v1_CancelAllRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAllResponse__Output>,
  ): grpc.ClientUnaryCall;
  CancelAllOrders(
    argument: _engine_v1_CancelAllRequest,
    callback: grpc.requestCallback<_engine_v1_CancelAllResponse__Output>,
  ): grpc.ClientUnaryCall;
  cancelAllOrders(
    argument: _engine_v1_CancelAllRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAllResponse__Output>,
  ): grpc.ClientUnaryCall;
  cancelAllOrders(
    argument: _engine_v1_CancelAllRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_CancelAllResponse__Output>,
  ): grpc.ClientUnaryCall;
  cancelAllOrders(
    argument: _engine_v1_CancelAllRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAllResponse__Output>,
  ): grpc.ClientUnaryCall;
  cancelAllOrders(
    argument: _engine_v1_CancelAllRequest,
    callback: grpc.requestCallback<_engine_v1_CancelAllResponse__Output>,
  ): grpc.ClientUnaryCall;

  CancelOrder(
    argument: _engine_v1_OrderRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  CancelOrder(
    argument: _engine_v1_OrderRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  CancelOrder(
    argument: _engine_v1_OrderRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  CancelOrder(
    argument: _engine_v1_OrderRef,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  cancelOrder(
    argument: _engine_v1_OrderRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  cancelOrder(
    argument: _engine_v1_OrderRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  cancelOrder(
    argument: _engine_v1_OrderRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  cancelOrder(
    argument: _engine_v1_OrderRef,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;

  ClosePosition(
    argument: _engine_v1_ClosePositionRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  ClosePosition(
    argument: _engine_v1_ClosePositionRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  ClosePosition(
    argument: _engine_v1_ClosePositionRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  ClosePosition(
    argument: _engine_v1_ClosePositionRequest,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  closePosition(
    argument: _engine_v1_ClosePositionRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  closePosition(
    argument: _engine_v1_ClosePositionRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  closePosition(
    argument: _engine_v1_ClosePositionRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  closePosition(
    argument: _engine_v1_ClosePositionRequest,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;

  CreateAccount(
    argument: _engine_v1_CreateAccountRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  CreateAccount(
    argument: _engine_v1_CreateAccountRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  CreateAccount(
    argument: _engine_v1_CreateAccountRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  CreateAccount(
    argument: _engine_v1_CreateAccountRequest,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  createAccount(
    argument: _engine_v1_CreateAccountRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  createAccount(
    argument: _engine_v1_CreateAccountRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  createAccount(
    argument: _engine_v1_CreateAccountRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  createAccount(
    argument: _engine_v1_CreateAccountRequest,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;

  FindOrderByClientId(
    argument: _engine_v1_ClientOrderRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  FindOrderByClientId(
    argument: _engine_v1_ClientOrderRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  FindOrderByClientId(
    argument: _engine_v1_ClientOrderRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  FindOrderByClientId(
    argument: _engine_v1_ClientOrderRef,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  findOrderByClientId(
    argument: _engine_v1_ClientOrderRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  findOrderByClientId(
    argument: _engine_v1_ClientOrderRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  findOrderByClientId(
    argument: _engine_v1_ClientOrderRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  findOrderByClientId(
    argument: _engine_v1_ClientOrderRef,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;

  Flatten(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_FlattenResponse__Output>,
  ): grpc.ClientUnaryCall;
  Flatten(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_FlattenResponse__Output>,
  ): grpc.ClientUnaryCall;
  Flatten(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_FlattenResponse__Output>,
  ): grpc.ClientUnaryCall;
  Flatten(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_FlattenResponse__Output>,
  ): grpc.ClientUnaryCall;
  flatten(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_FlattenResponse__Output>,
  ): grpc.ClientUnaryCall;
  flatten(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_FlattenResponse__Output>,
  ): grpc.ClientUnaryCall;
  flatten(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_FlattenResponse__Output>,
  ): grpc.ClientUnaryCall;
  flatten(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_FlattenResponse__Output>,
  ): grpc.ClientUnaryCall;

  GetAccount(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  GetAccount(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  GetAccount(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  GetAccount(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  getAccount(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  getAccount(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  getAccount(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;
  getAccount(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_Account__Output>,
  ): grpc.ClientUnaryCall;

  GetAnalytics(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Analytics__Output>,
  ): grpc.ClientUnaryCall;
  GetAnalytics(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Analytics__Output>,
  ): grpc.ClientUnaryCall;
  GetAnalytics(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Analytics__Output>,
  ): grpc.ClientUnaryCall;
  GetAnalytics(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_Analytics__Output>,
  ): grpc.ClientUnaryCall;
  getAnalytics(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Analytics__Output>,
  ): grpc.ClientUnaryCall;
  getAnalytics(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Analytics__Output>,
  ): grpc.ClientUnaryCall;
  getAnalytics(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Analytics__Output>,
  ): grpc.ClientUnaryCall;
  getAnalytics(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_Analytics__Output>,
  ): grpc.ClientUnaryCall;

  GetCalendar(
    argument: _engine_v1_GetCalendarRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Calendar__Output>,
  ): grpc.ClientUnaryCall;
  GetCalendar(
    argument: _engine_v1_GetCalendarRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Calendar__Output>,
  ): grpc.ClientUnaryCall;
  GetCalendar(
    argument: _engine_v1_GetCalendarRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Calendar__Output>,
  ): grpc.ClientUnaryCall;
  GetCalendar(
    argument: _engine_v1_GetCalendarRequest,
    callback: grpc.requestCallback<_engine_v1_Calendar__Output>,
  ): grpc.ClientUnaryCall;
  getCalendar(
    argument: _engine_v1_GetCalendarRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Calendar__Output>,
  ): grpc.ClientUnaryCall;
  getCalendar(
    argument: _engine_v1_GetCalendarRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Calendar__Output>,
  ): grpc.ClientUnaryCall;
  getCalendar(
    argument: _engine_v1_GetCalendarRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Calendar__Output>,
  ): grpc.ClientUnaryCall;
  getCalendar(
    argument: _engine_v1_GetCalendarRequest,
    callback: grpc.requestCallback<_engine_v1_Calendar__Output>,
  ): grpc.ClientUnaryCall;

  GetCancelAfter(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  GetCancelAfter(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  GetCancelAfter(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  GetCancelAfter(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  getCancelAfter(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  getCancelAfter(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  getCancelAfter(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  getCancelAfter(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;

  GetOrder(
    argument: _engine_v1_OrderRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  GetOrder(
    argument: _engine_v1_OrderRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  GetOrder(
    argument: _engine_v1_OrderRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  GetOrder(
    argument: _engine_v1_OrderRef,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  getOrder(
    argument: _engine_v1_OrderRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  getOrder(
    argument: _engine_v1_OrderRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  getOrder(
    argument: _engine_v1_OrderRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;
  getOrder(
    argument: _engine_v1_OrderRef,
    callback: grpc.requestCallback<_engine_v1_OrderReply__Output>,
  ): grpc.ClientUnaryCall;

  GetSummary(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Summary__Output>,
  ): grpc.ClientUnaryCall;
  GetSummary(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Summary__Output>,
  ): grpc.ClientUnaryCall;
  GetSummary(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Summary__Output>,
  ): grpc.ClientUnaryCall;
  GetSummary(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_Summary__Output>,
  ): grpc.ClientUnaryCall;
  getSummary(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Summary__Output>,
  ): grpc.ClientUnaryCall;
  getSummary(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Summary__Output>,
  ): grpc.ClientUnaryCall;
  getSummary(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Summary__Output>,
  ): grpc.ClientUnaryCall;
  getSummary(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_Summary__Output>,
  ): grpc.ClientUnaryCall;

  ListBreaches(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListBreachesResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListBreaches(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListBreachesResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListBreaches(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListBreachesResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListBreaches(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_ListBreachesResponse__Output>,
  ): grpc.ClientUnaryCall;
  listBreaches(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListBreachesResponse__Output>,
  ): grpc.ClientUnaryCall;
  listBreaches(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListBreachesResponse__Output>,
  ): grpc.ClientUnaryCall;
  listBreaches(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListBreachesResponse__Output>,
  ): grpc.ClientUnaryCall;
  listBreaches(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_ListBreachesResponse__Output>,
  ): grpc.ClientUnaryCall;

  ListDeliveries(
    argument: _engine_v1_ListDeliveriesRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListDeliveriesResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListDeliveries(
    argument: _engine_v1_ListDeliveriesRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListDeliveriesResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListDeliveries(
    argument: _engine_v1_ListDeliveriesRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListDeliveriesResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListDeliveries(
    argument: _engine_v1_ListDeliveriesRequest,
    callback: grpc.requestCallback<_engine_v1_ListDeliveriesResponse__Output>,
  ): grpc.ClientUnaryCall;
  listDeliveries(
    argument: _engine_v1_ListDeliveriesRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListDeliveriesResponse__Output>,
  ): grpc.ClientUnaryCall;
  listDeliveries(
    argument: _engine_v1_ListDeliveriesRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListDeliveriesResponse__Output>,
  ): grpc.ClientUnaryCall;
  listDeliveries(
    argument: _engine_v1_ListDeliveriesRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListDeliveriesResponse__Output>,
  ): grpc.ClientUnaryCall;
  listDeliveries(
    argument: _engine_v1_ListDeliveriesRequest,
    callback: grpc.requestCallback<_engine_v1_ListDeliveriesResponse__Output>,
  ): grpc.ClientUnaryCall;

  ListEvents(
    argument: _engine_v1_ListEventsRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListEventsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListEvents(
    argument: _engine_v1_ListEventsRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListEventsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListEvents(
    argument: _engine_v1_ListEventsRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListEventsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListEvents(
    argument: _engine_v1_ListEventsRequest,
    callback: grpc.requestCallback<_engine_v1_ListEventsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listEvents(
    argument: _engine_v1_ListEventsRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListEventsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listEvents(
    argument: _engine_v1_ListEventsRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListEventsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listEvents(
    argument: _engine_v1_ListEventsRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListEventsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listEvents(
    argument: _engine_v1_ListEventsRequest,
    callback: grpc.requestCallback<_engine_v1_ListEventsResponse__Output>,
  ): grpc.ClientUnaryCall;

  ListFunding(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_FundingReport__Output>,
  ): grpc.ClientUnaryCall;
  ListFunding(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_FundingReport__Output>,
  ): grpc.ClientUnaryCall;
  ListFunding(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_FundingReport__Output>,
  ): grpc.ClientUnaryCall;
  ListFunding(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_FundingReport__Output>,
  ): grpc.ClientUnaryCall;
  listFunding(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_FundingReport__Output>,
  ): grpc.ClientUnaryCall;
  listFunding(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_FundingReport__Output>,
  ): grpc.ClientUnaryCall;
  listFunding(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_FundingReport__Output>,
  ): grpc.ClientUnaryCall;
  listFunding(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_FundingReport__Output>,
  ): grpc.ClientUnaryCall;

  ListOrderHistory(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrderHistoryResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListOrderHistory(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListOrderHistoryResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListOrderHistory(
    argument: _engine_v1_ListRangeRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrderHistoryResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListOrderHistory(
    argument: _engine_v1_ListRangeRequest,
    callback: grpc.requestCallback<_engine_v1_ListOrderHistoryResponse__Output>,
  ): grpc.ClientUnaryCall;
  listOrderHistory(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrderHistoryResponse__Output>,
  ): grpc.ClientUnaryCall;
  listOrderHistory(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListOrderHistoryResponse__Output>,
  ): grpc.ClientUnaryCall;
  listOrderHistory(
    argument: _engine_v1_ListRangeRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrderHistoryResponse__Output>,
  ): grpc.ClientUnaryCall;
  listOrderHistory(
    argument: _engine_v1_ListRangeRequest,
    callback: grpc.requestCallback<_engine_v1_ListOrderHistoryResponse__Output>,
  ): grpc.ClientUnaryCall;

  ListOrders(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListOrders(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListOrders(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListOrders(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  listOrders(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  listOrders(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  listOrders(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;
  listOrders(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_ListOrdersResponse__Output>,
  ): grpc.ClientUnaryCall;

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

  ListPositionHistory(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListClosedPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListPositionHistory(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListClosedPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListPositionHistory(
    argument: _engine_v1_ListRangeRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListClosedPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListPositionHistory(
    argument: _engine_v1_ListRangeRequest,
    callback: grpc.requestCallback<_engine_v1_ListClosedPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPositionHistory(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListClosedPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPositionHistory(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListClosedPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPositionHistory(
    argument: _engine_v1_ListRangeRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListClosedPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPositionHistory(
    argument: _engine_v1_ListRangeRequest,
    callback: grpc.requestCallback<_engine_v1_ListClosedPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;

  ListPositions(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListPositions(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListPositions(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListPositions(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_ListPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPositions(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPositions(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPositions(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListPositionsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listPositions(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_ListPositionsResponse__Output>,
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

  ListTrades(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListFillsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListTrades(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListFillsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListTrades(
    argument: _engine_v1_ListRangeRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListFillsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListTrades(
    argument: _engine_v1_ListRangeRequest,
    callback: grpc.requestCallback<_engine_v1_ListFillsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listTrades(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListFillsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listTrades(
    argument: _engine_v1_ListRangeRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListFillsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listTrades(
    argument: _engine_v1_ListRangeRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListFillsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listTrades(
    argument: _engine_v1_ListRangeRequest,
    callback: grpc.requestCallback<_engine_v1_ListFillsResponse__Output>,
  ): grpc.ClientUnaryCall;

  ListViolations(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListViolationsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListViolations(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListViolationsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListViolations(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListViolationsResponse__Output>,
  ): grpc.ClientUnaryCall;
  ListViolations(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_ListViolationsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listViolations(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListViolationsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listViolations(
    argument: _engine_v1_AccountRef,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_ListViolationsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listViolations(
    argument: _engine_v1_AccountRef,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_ListViolationsResponse__Output>,
  ): grpc.ClientUnaryCall;
  listViolations(
    argument: _engine_v1_AccountRef,
    callback: grpc.requestCallback<_engine_v1_ListViolationsResponse__Output>,
  ): grpc.ClientUnaryCall;

  PlaceOrder(
    argument: _engine_v1_PlaceOrderRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  PlaceOrder(
    argument: _engine_v1_PlaceOrderRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  PlaceOrder(
    argument: _engine_v1_PlaceOrderRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  PlaceOrder(
    argument: _engine_v1_PlaceOrderRequest,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  placeOrder(
    argument: _engine_v1_PlaceOrderRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  placeOrder(
    argument: _engine_v1_PlaceOrderRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  placeOrder(
    argument: _engine_v1_PlaceOrderRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;
  placeOrder(
    argument: _engine_v1_PlaceOrderRequest,
    callback: grpc.requestCallback<_engine_v1_OrderResponse__Output>,
  ): grpc.ClientUnaryCall;

  Redeliver(
    argument: _engine_v1_RedeliverRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Delivery__Output>,
  ): grpc.ClientUnaryCall;
  Redeliver(
    argument: _engine_v1_RedeliverRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Delivery__Output>,
  ): grpc.ClientUnaryCall;
  Redeliver(
    argument: _engine_v1_RedeliverRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Delivery__Output>,
  ): grpc.ClientUnaryCall;
  Redeliver(
    argument: _engine_v1_RedeliverRequest,
    callback: grpc.requestCallback<_engine_v1_Delivery__Output>,
  ): grpc.ClientUnaryCall;
  redeliver(
    argument: _engine_v1_RedeliverRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Delivery__Output>,
  ): grpc.ClientUnaryCall;
  redeliver(
    argument: _engine_v1_RedeliverRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_Delivery__Output>,
  ): grpc.ClientUnaryCall;
  redeliver(
    argument: _engine_v1_RedeliverRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_Delivery__Output>,
  ): grpc.ClientUnaryCall;
  redeliver(
    argument: _engine_v1_RedeliverRequest,
    callback: grpc.requestCallback<_engine_v1_Delivery__Output>,
  ): grpc.ClientUnaryCall;

  SetCancelAfter(
    argument: _engine_v1_SetCancelAfterRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  SetCancelAfter(
    argument: _engine_v1_SetCancelAfterRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  SetCancelAfter(
    argument: _engine_v1_SetCancelAfterRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  SetCancelAfter(
    argument: _engine_v1_SetCancelAfterRequest,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  setCancelAfter(
    argument: _engine_v1_SetCancelAfterRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  setCancelAfter(
    argument: _engine_v1_SetCancelAfterRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  setCancelAfter(
    argument: _engine_v1_SetCancelAfterRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;
  setCancelAfter(
    argument: _engine_v1_SetCancelAfterRequest,
    callback: grpc.requestCallback<_engine_v1_CancelAfter__Output>,
  ): grpc.ClientUnaryCall;

  TestOrder(
    argument: _engine_v1_PlaceOrderRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderTestResponse__Output>,
  ): grpc.ClientUnaryCall;
  TestOrder(
    argument: _engine_v1_PlaceOrderRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderTestResponse__Output>,
  ): grpc.ClientUnaryCall;
  TestOrder(
    argument: _engine_v1_PlaceOrderRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderTestResponse__Output>,
  ): grpc.ClientUnaryCall;
  TestOrder(
    argument: _engine_v1_PlaceOrderRequest,
    callback: grpc.requestCallback<_engine_v1_OrderTestResponse__Output>,
  ): grpc.ClientUnaryCall;
  testOrder(
    argument: _engine_v1_PlaceOrderRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderTestResponse__Output>,
  ): grpc.ClientUnaryCall;
  testOrder(
    argument: _engine_v1_PlaceOrderRequest,
    metadata: grpc.Metadata,
    callback: grpc.requestCallback<_engine_v1_OrderTestResponse__Output>,
  ): grpc.ClientUnaryCall;
  testOrder(
    argument: _engine_v1_PlaceOrderRequest,
    options: grpc.CallOptions,
    callback: grpc.requestCallback<_engine_v1_OrderTestResponse__Output>,
  ): grpc.ClientUnaryCall;
  testOrder(
    argument: _engine_v1_PlaceOrderRequest,
    callback: grpc.requestCallback<_engine_v1_OrderTestResponse__Output>,
  ): grpc.ClientUnaryCall;

  WatchAccount(
    argument: _engine_v1_WatchAccountRequest,
    metadata: grpc.Metadata,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_WatchAccountReply__Output>;
  WatchAccount(
    argument: _engine_v1_WatchAccountRequest,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_WatchAccountReply__Output>;
  watchAccount(
    argument: _engine_v1_WatchAccountRequest,
    metadata: grpc.Metadata,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_WatchAccountReply__Output>;
  watchAccount(
    argument: _engine_v1_WatchAccountRequest,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_WatchAccountReply__Output>;

  WatchCatalogue(
    argument: _engine_v1_WatchCatalogueRequest,
    metadata: grpc.Metadata,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_CatalogueUpdate__Output>;
  WatchCatalogue(
    argument: _engine_v1_WatchCatalogueRequest,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_CatalogueUpdate__Output>;
  watchCatalogue(
    argument: _engine_v1_WatchCatalogueRequest,
    metadata: grpc.Metadata,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_CatalogueUpdate__Output>;
  watchCatalogue(
    argument: _engine_v1_WatchCatalogueRequest,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_CatalogueUpdate__Output>;

  WatchTickers(
    argument: _engine_v1_WatchTickersRequest,
    metadata: grpc.Metadata,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_Ticker__Output>;
  WatchTickers(
    argument: _engine_v1_WatchTickersRequest,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_Ticker__Output>;
  watchTickers(
    argument: _engine_v1_WatchTickersRequest,
    metadata: grpc.Metadata,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_Ticker__Output>;
  watchTickers(
    argument: _engine_v1_WatchTickersRequest,
    options?: grpc.CallOptions,
  ): grpc.ClientReadableStream<_engine_v1_Ticker__Output>;
}

export interface EngineHandlers extends grpc.UntypedServiceImplementation {
  AmendOrder: grpc.handleUnaryCall<_engine_v1_AmendOrderRequest__Output, _engine_v1_OrderReply>;

  CancelAllOrders: grpc.handleUnaryCall<_engine_v1_CancelAllRequest__Output, _engine_v1_CancelAllResponse>;

  CancelOrder: grpc.handleUnaryCall<_engine_v1_OrderRef__Output, _engine_v1_OrderReply>;

  ClosePosition: grpc.handleUnaryCall<_engine_v1_ClosePositionRequest__Output, _engine_v1_OrderResponse>;

  CreateAccount: grpc.handleUnaryCall<_engine_v1_CreateAccountRequest__Output, _engine_v1_Account>;

  FindOrderByClientId: grpc.handleUnaryCall<_engine_v1_ClientOrderRef__Output, _engine_v1_ListOrdersResponse>;

  Flatten: grpc.handleUnaryCall<_engine_v1_AccountRef__Output, _engine_v1_FlattenResponse>;

  GetAccount: grpc.handleUnaryCall<_engine_v1_AccountRef__Output, _engine_v1_Account>;

  GetAnalytics: grpc.handleUnaryCall<_engine_v1_AccountRef__Output, _engine_v1_Analytics>;

  GetCalendar: grpc.handleUnaryCall<_engine_v1_GetCalendarRequest__Output, _engine_v1_Calendar>;

  GetCancelAfter: grpc.handleUnaryCall<_engine_v1_AccountRef__Output, _engine_v1_CancelAfter>;

  GetOrder: grpc.handleUnaryCall<_engine_v1_OrderRef__Output, _engine_v1_OrderReply>;

  GetSummary: grpc.handleUnaryCall<_engine_v1_AccountRef__Output, _engine_v1_Summary>;

  ListBreaches: grpc.handleUnaryCall<_engine_v1_AccountRef__Output, _engine_v1_ListBreachesResponse>;

  ListDeliveries: grpc.handleUnaryCall<_engine_v1_ListDeliveriesRequest__Output, _engine_v1_ListDeliveriesResponse>;

  ListEvents: grpc.handleUnaryCall<_engine_v1_ListEventsRequest__Output, _engine_v1_ListEventsResponse>;

  ListFunding: grpc.handleUnaryCall<_engine_v1_AccountRef__Output, _engine_v1_FundingReport>;

  ListOrderHistory: grpc.handleUnaryCall<_engine_v1_ListRangeRequest__Output, _engine_v1_ListOrderHistoryResponse>;

  ListOrders: grpc.handleUnaryCall<_engine_v1_AccountRef__Output, _engine_v1_ListOrdersResponse>;

  ListPlans: grpc.handleUnaryCall<_engine_v1_ListPlansRequest__Output, _engine_v1_ListPlansResponse>;

  ListPositionHistory: grpc.handleUnaryCall<
    _engine_v1_ListRangeRequest__Output,
    _engine_v1_ListClosedPositionsResponse
  >;

  ListPositions: grpc.handleUnaryCall<_engine_v1_AccountRef__Output, _engine_v1_ListPositionsResponse>;

  ListTickers: grpc.handleUnaryCall<_engine_v1_ListTickersRequest__Output, _engine_v1_ListTickersResponse>;

  ListTrades: grpc.handleUnaryCall<_engine_v1_ListRangeRequest__Output, _engine_v1_ListFillsResponse>;

  ListViolations: grpc.handleUnaryCall<_engine_v1_AccountRef__Output, _engine_v1_ListViolationsResponse>;

  PlaceOrder: grpc.handleUnaryCall<_engine_v1_PlaceOrderRequest__Output, _engine_v1_OrderResponse>;

  Redeliver: grpc.handleUnaryCall<_engine_v1_RedeliverRequest__Output, _engine_v1_Delivery>;

  SetCancelAfter: grpc.handleUnaryCall<_engine_v1_SetCancelAfterRequest__Output, _engine_v1_CancelAfter>;

  TestOrder: grpc.handleUnaryCall<_engine_v1_PlaceOrderRequest__Output, _engine_v1_OrderTestResponse>;

  WatchAccount: grpc.handleServerStreamingCall<_engine_v1_WatchAccountRequest__Output, _engine_v1_WatchAccountReply>;

  WatchCatalogue: grpc.handleServerStreamingCall<_engine_v1_WatchCatalogueRequest__Output, _engine_v1_CatalogueUpdate>;

  WatchTickers: grpc.handleServerStreamingCall<_engine_v1_WatchTickersRequest__Output, _engine_v1_Ticker>;
}

export interface EngineDefinition extends grpc.ServiceDefinition {
  AmendOrder: MethodDefinition<
    _engine_v1_AmendOrderRequest,
    _engine_v1_OrderReply,
    _engine_v1_AmendOrderRequest__Output,
    _engine_v1_OrderReply__Output
  >;
  CancelAllOrders: MethodDefinition<
    _engine_v1_CancelAllRequest,
    _engine_v1_CancelAllResponse,
    _engine_v1_CancelAllRequest__Output,
    _engine_v1_CancelAllResponse__Output
  >;
  CancelOrder: MethodDefinition<
    _engine_v1_OrderRef,
    _engine_v1_OrderReply,
    _engine_v1_OrderRef__Output,
    _engine_v1_OrderReply__Output
  >;
  ClosePosition: MethodDefinition<
    _engine_v1_ClosePositionRequest,
    _engine_v1_OrderResponse,
    _engine_v1_ClosePositionRequest__Output,
    _engine_v1_OrderResponse__Output
  >;
  CreateAccount: MethodDefinition<
    _engine_v1_CreateAccountRequest,
    _engine_v1_Account,
    _engine_v1_CreateAccountRequest__Output,
    _engine_v1_Account__Output
  >;
  FindOrderByClientId: MethodDefinition<
    _engine_v1_ClientOrderRef,
    _engine_v1_ListOrdersResponse,
    _engine_v1_ClientOrderRef__Output,
    _engine_v1_ListOrdersResponse__Output
  >;
  Flatten: MethodDefinition<
    _engine_v1_AccountRef,
    _engine_v1_FlattenResponse,
    _engine_v1_AccountRef__Output,
    _engine_v1_FlattenResponse__Output
  >;
  GetAccount: MethodDefinition<
    _engine_v1_AccountRef,
    _engine_v1_Account,
    _engine_v1_AccountRef__Output,
    _engine_v1_Account__Output
  >;
  GetAnalytics: MethodDefinition<
    _engine_v1_AccountRef,
    _engine_v1_Analytics,
    _engine_v1_AccountRef__Output,
    _engine_v1_Analytics__Output
  >;
  GetCalendar: MethodDefinition<
    _engine_v1_GetCalendarRequest,
    _engine_v1_Calendar,
    _engine_v1_GetCalendarRequest__Output,
    _engine_v1_Calendar__Output
  >;
  GetCancelAfter: MethodDefinition<
    _engine_v1_AccountRef,
    _engine_v1_CancelAfter,
    _engine_v1_AccountRef__Output,
    _engine_v1_CancelAfter__Output
  >;
  GetOrder: MethodDefinition<
    _engine_v1_OrderRef,
    _engine_v1_OrderReply,
    _engine_v1_OrderRef__Output,
    _engine_v1_OrderReply__Output
  >;
  GetSummary: MethodDefinition<
    _engine_v1_AccountRef,
    _engine_v1_Summary,
    _engine_v1_AccountRef__Output,
    _engine_v1_Summary__Output
  >;
  ListBreaches: MethodDefinition<
    _engine_v1_AccountRef,
    _engine_v1_ListBreachesResponse,
    _engine_v1_AccountRef__Output,
    _engine_v1_ListBreachesResponse__Output
  >;
  ListDeliveries: MethodDefinition<
    _engine_v1_ListDeliveriesRequest,
    _engine_v1_ListDeliveriesResponse,
    _engine_v1_ListDeliveriesRequest__Output,
    _engine_v1_ListDeliveriesResponse__Output
  >;
  ListEvents: MethodDefinition<
    _engine_v1_ListEventsRequest,
    _engine_v1_ListEventsResponse,
    _engine_v1_ListEventsRequest__Output,
    _engine_v1_ListEventsResponse__Output
  >;
  ListFunding: MethodDefinition<
    _engine_v1_AccountRef,
    _engine_v1_FundingReport,
    _engine_v1_AccountRef__Output,
    _engine_v1_FundingReport__Output
  >;
  ListOrderHistory: MethodDefinition<
    _engine_v1_ListRangeRequest,
    _engine_v1_ListOrderHistoryResponse,
    _engine_v1_ListRangeRequest__Output,
    _engine_v1_ListOrderHistoryResponse__Output
  >;
  ListOrders: MethodDefinition<
    _engine_v1_AccountRef,
    _engine_v1_ListOrdersResponse,
    _engine_v1_AccountRef__Output,
    _engine_v1_ListOrdersResponse__Output
  >;
  ListPlans: MethodDefinition<
    _engine_v1_ListPlansRequest,
    _engine_v1_ListPlansResponse,
    _engine_v1_ListPlansRequest__Output,
    _engine_v1_ListPlansResponse__Output
  >;
  ListPositionHistory: MethodDefinition<
    _engine_v1_ListRangeRequest,
    _engine_v1_ListClosedPositionsResponse,
    _engine_v1_ListRangeRequest__Output,
    _engine_v1_ListClosedPositionsResponse__Output
  >;
  ListPositions: MethodDefinition<
    _engine_v1_AccountRef,
    _engine_v1_ListPositionsResponse,
    _engine_v1_AccountRef__Output,
    _engine_v1_ListPositionsResponse__Output
  >;
  ListTickers: MethodDefinition<
    _engine_v1_ListTickersRequest,
    _engine_v1_ListTickersResponse,
    _engine_v1_ListTickersRequest__Output,
    _engine_v1_ListTickersResponse__Output
  >;
  ListTrades: MethodDefinition<
    _engine_v1_ListRangeRequest,
    _engine_v1_ListFillsResponse,
    _engine_v1_ListRangeRequest__Output,
    _engine_v1_ListFillsResponse__Output
  >;
  ListViolations: MethodDefinition<
    _engine_v1_AccountRef,
    _engine_v1_ListViolationsResponse,
    _engine_v1_AccountRef__Output,
    _engine_v1_ListViolationsResponse__Output
  >;
  PlaceOrder: MethodDefinition<
    _engine_v1_PlaceOrderRequest,
    _engine_v1_OrderResponse,
    _engine_v1_PlaceOrderRequest__Output,
    _engine_v1_OrderResponse__Output
  >;
  Redeliver: MethodDefinition<
    _engine_v1_RedeliverRequest,
    _engine_v1_Delivery,
    _engine_v1_RedeliverRequest__Output,
    _engine_v1_Delivery__Output
  >;
  SetCancelAfter: MethodDefinition<
    _engine_v1_SetCancelAfterRequest,
    _engine_v1_CancelAfter,
    _engine_v1_SetCancelAfterRequest__Output,
    _engine_v1_CancelAfter__Output
  >;
  TestOrder: MethodDefinition<
    _engine_v1_PlaceOrderRequest,
    _engine_v1_OrderTestResponse,
    _engine_v1_PlaceOrderRequest__Output,
    _engine_v1_OrderTestResponse__Output
  >;
  WatchAccount: MethodDefinition<
    _engine_v1_WatchAccountRequest,
    _engine_v1_WatchAccountReply,
    _engine_v1_WatchAccountRequest__Output,
    _engine_v1_WatchAccountReply__Output
  >;
  WatchCatalogue: MethodDefinition<
    _engine_v1_WatchCatalogueRequest,
    _engine_v1_CatalogueUpdate,
    _engine_v1_WatchCatalogueRequest__Output,
    _engine_v1_CatalogueUpdate__Output
  >;
  WatchTickers: MethodDefinition<
    _engine_v1_WatchTickersRequest,
    _engine_v1_Ticker,
    _engine_v1_WatchTickersRequest__Output,
    _engine_v1_Ticker__Output
  >;
}
