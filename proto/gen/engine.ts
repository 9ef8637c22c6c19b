import type * as grpc from "@grpc/grpc-js";
import type { MessageTypeDefinition } from "@grpc/proto-loader";

import type {
  Account as _engine_v1_Account,
  Account__Output as _engine_v1_Account__Output,
} from "./engine/v1/Account.js";
import type {
  AccountRef as _engine_v1_AccountRef,
  AccountRef__Output as _engine_v1_AccountRef__Output,
} from "./engine/v1/AccountRef.js";
import type {
  AmendOrderRequest as _engine_v1_AmendOrderRequest,
  AmendOrderRequest__Output as _engine_v1_AmendOrderRequest__Output,
} from "./engine/v1/AmendOrderRequest.js";
import type {
  Analytics as _engine_v1_Analytics,
  Analytics__Output as _engine_v1_Analytics__Output,
} from "./engine/v1/Analytics.js";
import type { Breach as _engine_v1_Breach, Breach__Output as _engine_v1_Breach__Output } from "./engine/v1/Breach.js";
import type {
  Calendar as _engine_v1_Calendar,
  Calendar__Output as _engine_v1_Calendar__Output,
} from "./engine/v1/Calendar.js";
import type {
  CalendarEvent as _engine_v1_CalendarEvent,
  CalendarEvent__Output as _engine_v1_CalendarEvent__Output,
} from "./engine/v1/CalendarEvent.js";
import type {
  CancelAfter as _engine_v1_CancelAfter,
  CancelAfter__Output as _engine_v1_CancelAfter__Output,
} from "./engine/v1/CancelAfter.js";
import type {
  CancelAllRequest as _engine_v1_CancelAllRequest,
  CancelAllRequest__Output as _engine_v1_CancelAllRequest__Output,
} from "./engine/v1/CancelAllRequest.js";
import type {
  CancelAllResponse as _engine_v1_CancelAllResponse,
  CancelAllResponse__Output as _engine_v1_CancelAllResponse__Output,
} from "./engine/v1/CancelAllResponse.js";
import type {
  CatalogueUpdate as _engine_v1_CatalogueUpdate,
  CatalogueUpdate__Output as _engine_v1_CatalogueUpdate__Output,
} from "./engine/v1/CatalogueUpdate.js";
import type {
  ClientOrderRef as _engine_v1_ClientOrderRef,
  ClientOrderRef__Output as _engine_v1_ClientOrderRef__Output,
} from "./engine/v1/ClientOrderRef.js";
import type {
  ClosePositionRequest as _engine_v1_ClosePositionRequest,
  ClosePositionRequest__Output as _engine_v1_ClosePositionRequest__Output,
} from "./engine/v1/ClosePositionRequest.js";
import type {
  ClosedPosition as _engine_v1_ClosedPosition,
  ClosedPosition__Output as _engine_v1_ClosedPosition__Output,
} from "./engine/v1/ClosedPosition.js";
import type {
  CreateAccountRequest as _engine_v1_CreateAccountRequest,
  CreateAccountRequest__Output as _engine_v1_CreateAccountRequest__Output,
} from "./engine/v1/CreateAccountRequest.js";
import type {
  Delivery as _engine_v1_Delivery,
  Delivery__Output as _engine_v1_Delivery__Output,
} from "./engine/v1/Delivery.js";
import type {
  DeliveryAttempt as _engine_v1_DeliveryAttempt,
  DeliveryAttempt__Output as _engine_v1_DeliveryAttempt__Output,
} from "./engine/v1/DeliveryAttempt.js";
import type {
  EngineClient as _engine_v1_EngineClient,
  EngineDefinition as _engine_v1_EngineDefinition,
} from "./engine/v1/Engine.js";
import type {
  EngineSessionClient as _engine_v1_EngineSessionClient,
  EngineSessionDefinition as _engine_v1_EngineSessionDefinition,
} from "./engine/v1/EngineSession.js";
import type {
  Exposure as _engine_v1_Exposure,
  Exposure__Output as _engine_v1_Exposure__Output,
} from "./engine/v1/Exposure.js";
import type { Fill as _engine_v1_Fill, Fill__Output as _engine_v1_Fill__Output } from "./engine/v1/Fill.js";
import type {
  FlattenClose as _engine_v1_FlattenClose,
  FlattenClose__Output as _engine_v1_FlattenClose__Output,
} from "./engine/v1/FlattenClose.js";
import type {
  FlattenIssue as _engine_v1_FlattenIssue,
  FlattenIssue__Output as _engine_v1_FlattenIssue__Output,
} from "./engine/v1/FlattenIssue.js";
import type {
  FlattenResponse as _engine_v1_FlattenResponse,
  FlattenResponse__Output as _engine_v1_FlattenResponse__Output,
} from "./engine/v1/FlattenResponse.js";
import type {
  FundingByAssetClass as _engine_v1_FundingByAssetClass,
  FundingByAssetClass__Output as _engine_v1_FundingByAssetClass__Output,
} from "./engine/v1/FundingByAssetClass.js";
import type {
  FundingPayment as _engine_v1_FundingPayment,
  FundingPayment__Output as _engine_v1_FundingPayment__Output,
} from "./engine/v1/FundingPayment.js";
import type {
  FundingReport as _engine_v1_FundingReport,
  FundingReport__Output as _engine_v1_FundingReport__Output,
} from "./engine/v1/FundingReport.js";
import type {
  GetCalendarRequest as _engine_v1_GetCalendarRequest,
  GetCalendarRequest__Output as _engine_v1_GetCalendarRequest__Output,
} from "./engine/v1/GetCalendarRequest.js";
import type {
  ListBreachesResponse as _engine_v1_ListBreachesResponse,
  ListBreachesResponse__Output as _engine_v1_ListBreachesResponse__Output,
} from "./engine/v1/ListBreachesResponse.js";
import type {
  ListClosedPositionsResponse as _engine_v1_ListClosedPositionsResponse,
  ListClosedPositionsResponse__Output as _engine_v1_ListClosedPositionsResponse__Output,
} from "./engine/v1/ListClosedPositionsResponse.js";
import type {
  ListDeliveriesRequest as _engine_v1_ListDeliveriesRequest,
  ListDeliveriesRequest__Output as _engine_v1_ListDeliveriesRequest__Output,
} from "./engine/v1/ListDeliveriesRequest.js";
import type {
  ListDeliveriesResponse as _engine_v1_ListDeliveriesResponse,
  ListDeliveriesResponse__Output as _engine_v1_ListDeliveriesResponse__Output,
} from "./engine/v1/ListDeliveriesResponse.js";
import type {
  ListEventsRequest as _engine_v1_ListEventsRequest,
  ListEventsRequest__Output as _engine_v1_ListEventsRequest__Output,
} from "./engine/v1/ListEventsRequest.js";
import type {
  ListEventsResponse as _engine_v1_ListEventsResponse,
  ListEventsResponse__Output as _engine_v1_ListEventsResponse__Output,
} from "./engine/v1/ListEventsResponse.js";
import type {
  ListFillsResponse as _engine_v1_ListFillsResponse,
  ListFillsResponse__Output as _engine_v1_ListFillsResponse__Output,
} from "./engine/v1/ListFillsResponse.js";
import type {
  ListOrderHistoryResponse as _engine_v1_ListOrderHistoryResponse,
  ListOrderHistoryResponse__Output as _engine_v1_ListOrderHistoryResponse__Output,
} from "./engine/v1/ListOrderHistoryResponse.js";
import type {
  ListOrdersResponse as _engine_v1_ListOrdersResponse,
  ListOrdersResponse__Output as _engine_v1_ListOrdersResponse__Output,
} from "./engine/v1/ListOrdersResponse.js";
import type {
  ListPlansRequest as _engine_v1_ListPlansRequest,
  ListPlansRequest__Output as _engine_v1_ListPlansRequest__Output,
} from "./engine/v1/ListPlansRequest.js";
import type {
  ListPlansResponse as _engine_v1_ListPlansResponse,
  ListPlansResponse__Output as _engine_v1_ListPlansResponse__Output,
} from "./engine/v1/ListPlansResponse.js";
import type {
  ListPositionsResponse as _engine_v1_ListPositionsResponse,
  ListPositionsResponse__Output as _engine_v1_ListPositionsResponse__Output,
} from "./engine/v1/ListPositionsResponse.js";
import type {
  ListRangeRequest as _engine_v1_ListRangeRequest,
  ListRangeRequest__Output as _engine_v1_ListRangeRequest__Output,
} from "./engine/v1/ListRangeRequest.js";
import type {
  ListTickersRequest as _engine_v1_ListTickersRequest,
  ListTickersRequest__Output as _engine_v1_ListTickersRequest__Output,
} from "./engine/v1/ListTickersRequest.js";
import type {
  ListTickersResponse as _engine_v1_ListTickersResponse,
  ListTickersResponse__Output as _engine_v1_ListTickersResponse__Output,
} from "./engine/v1/ListTickersResponse.js";
import type {
  ListViolationsResponse as _engine_v1_ListViolationsResponse,
  ListViolationsResponse__Output as _engine_v1_ListViolationsResponse__Output,
} from "./engine/v1/ListViolationsResponse.js";
import type {
  MaxLeverage as _engine_v1_MaxLeverage,
  MaxLeverage__Output as _engine_v1_MaxLeverage__Output,
} from "./engine/v1/MaxLeverage.js";
import type {
  NewsFreeze as _engine_v1_NewsFreeze,
  NewsFreeze__Output as _engine_v1_NewsFreeze__Output,
} from "./engine/v1/NewsFreeze.js";
import type { Order as _engine_v1_Order, Order__Output as _engine_v1_Order__Output } from "./engine/v1/Order.js";
import type {
  OrderRef as _engine_v1_OrderRef,
  OrderRef__Output as _engine_v1_OrderRef__Output,
} from "./engine/v1/OrderRef.js";
import type {
  OrderReply as _engine_v1_OrderReply,
  OrderReply__Output as _engine_v1_OrderReply__Output,
} from "./engine/v1/OrderReply.js";
import type {
  OrderResponse as _engine_v1_OrderResponse,
  OrderResponse__Output as _engine_v1_OrderResponse__Output,
} from "./engine/v1/OrderResponse.js";
import type {
  OrderTestResponse as _engine_v1_OrderTestResponse,
  OrderTestResponse__Output as _engine_v1_OrderTestResponse__Output,
} from "./engine/v1/OrderTestResponse.js";
import type {
  PlaceOrderRequest as _engine_v1_PlaceOrderRequest,
  PlaceOrderRequest__Output as _engine_v1_PlaceOrderRequest__Output,
} from "./engine/v1/PlaceOrderRequest.js";
import type { Plan as _engine_v1_Plan, Plan__Output as _engine_v1_Plan__Output } from "./engine/v1/Plan.js";
import type {
  Position as _engine_v1_Position,
  Position__Output as _engine_v1_Position__Output,
} from "./engine/v1/Position.js";
import type {
  RedeliverRequest as _engine_v1_RedeliverRequest,
  RedeliverRequest__Output as _engine_v1_RedeliverRequest__Output,
} from "./engine/v1/RedeliverRequest.js";
import type {
  RiskHeadroom as _engine_v1_RiskHeadroom,
  RiskHeadroom__Output as _engine_v1_RiskHeadroom__Output,
} from "./engine/v1/RiskHeadroom.js";
import type {
  RiskLimits as _engine_v1_RiskLimits,
  RiskLimits__Output as _engine_v1_RiskLimits__Output,
} from "./engine/v1/RiskLimits.js";
import type {
  SessionReply as _engine_v1_SessionReply,
  SessionReply__Output as _engine_v1_SessionReply__Output,
} from "./engine/v1/SessionReply.js";
import type {
  SessionRequest as _engine_v1_SessionRequest,
  SessionRequest__Output as _engine_v1_SessionRequest__Output,
} from "./engine/v1/SessionRequest.js";
import type {
  SetCancelAfterRequest as _engine_v1_SetCancelAfterRequest,
  SetCancelAfterRequest__Output as _engine_v1_SetCancelAfterRequest__Output,
} from "./engine/v1/SetCancelAfterRequest.js";
import type {
  Summary as _engine_v1_Summary,
  Summary__Output as _engine_v1_Summary__Output,
} from "./engine/v1/Summary.js";
import type { Ticker as _engine_v1_Ticker, Ticker__Output as _engine_v1_Ticker__Output } from "./engine/v1/Ticker.js";
import type {
  Violation as _engine_v1_Violation,
  Violation__Output as _engine_v1_Violation__Output,
} from "./engine/v1/Violation.js";
import type {
  ViolationRecord as _engine_v1_ViolationRecord,
  ViolationRecord__Output as _engine_v1_ViolationRecord__Output,
} from "./engine/v1/ViolationRecord.js";
import type {
  WatchAccountReply as _engine_v1_WatchAccountReply,
  WatchAccountReply__Output as _engine_v1_WatchAccountReply__Output,
} from "./engine/v1/WatchAccountReply.js";
import type {
  WatchAccountRequest as _engine_v1_WatchAccountRequest,
  WatchAccountRequest__Output as _engine_v1_WatchAccountRequest__Output,
} from "./engine/v1/WatchAccountRequest.js";
import type {
  WatchCatalogueRequest as _engine_v1_WatchCatalogueRequest,
  WatchCatalogueRequest__Output as _engine_v1_WatchCatalogueRequest__Output,
} from "./engine/v1/WatchCatalogueRequest.js";
import type {
  WatchTickersRequest as _engine_v1_WatchTickersRequest,
  WatchTickersRequest__Output as _engine_v1_WatchTickersRequest__Output,
} from "./engine/v1/WatchTickersRequest.js";
import type {
  WebhookEvent as _engine_v1_WebhookEvent,
  WebhookEvent__Output as _engine_v1_WebhookEvent__Output,
} from "./engine/v1/WebhookEvent.js";

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new (...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  engine: {
    v1: {
      Account: MessageTypeDefinition<_engine_v1_Account, _engine_v1_Account__Output>;
      AccountRef: MessageTypeDefinition<_engine_v1_AccountRef, _engine_v1_AccountRef__Output>;
      AmendOrderRequest: MessageTypeDefinition<_engine_v1_AmendOrderRequest, _engine_v1_AmendOrderRequest__Output>;
      Analytics: MessageTypeDefinition<_engine_v1_Analytics, _engine_v1_Analytics__Output>;
      Breach: MessageTypeDefinition<_engine_v1_Breach, _engine_v1_Breach__Output>;
      Calendar: MessageTypeDefinition<_engine_v1_Calendar, _engine_v1_Calendar__Output>;
      CalendarEvent: MessageTypeDefinition<_engine_v1_CalendarEvent, _engine_v1_CalendarEvent__Output>;
      CancelAfter: MessageTypeDefinition<_engine_v1_CancelAfter, _engine_v1_CancelAfter__Output>;
      CancelAllRequest: MessageTypeDefinition<_engine_v1_CancelAllRequest, _engine_v1_CancelAllRequest__Output>;
      CancelAllResponse: MessageTypeDefinition<_engine_v1_CancelAllResponse, _engine_v1_CancelAllResponse__Output>;
      CatalogueUpdate: MessageTypeDefinition<_engine_v1_CatalogueUpdate, _engine_v1_CatalogueUpdate__Output>;
      ClientOrderRef: MessageTypeDefinition<_engine_v1_ClientOrderRef, _engine_v1_ClientOrderRef__Output>;
      ClosePositionRequest: MessageTypeDefinition<
        _engine_v1_ClosePositionRequest,
        _engine_v1_ClosePositionRequest__Output
      >;
      ClosedPosition: MessageTypeDefinition<_engine_v1_ClosedPosition, _engine_v1_ClosedPosition__Output>;
      CreateAccountRequest: MessageTypeDefinition<
        _engine_v1_CreateAccountRequest,
        _engine_v1_CreateAccountRequest__Output
      >;
      Delivery: MessageTypeDefinition<_engine_v1_Delivery, _engine_v1_Delivery__Output>;
      DeliveryAttempt: MessageTypeDefinition<_engine_v1_DeliveryAttempt, _engine_v1_DeliveryAttempt__Output>;
      Engine: SubtypeConstructor<typeof grpc.Client, _engine_v1_EngineClient> & {
        service: _engine_v1_EngineDefinition;
      };
      EngineSession: SubtypeConstructor<typeof grpc.Client, _engine_v1_EngineSessionClient> & {
        service: _engine_v1_EngineSessionDefinition;
      };
      Exposure: MessageTypeDefinition<_engine_v1_Exposure, _engine_v1_Exposure__Output>;
      Fill: MessageTypeDefinition<_engine_v1_Fill, _engine_v1_Fill__Output>;
      FlattenClose: MessageTypeDefinition<_engine_v1_FlattenClose, _engine_v1_FlattenClose__Output>;
      FlattenIssue: MessageTypeDefinition<_engine_v1_FlattenIssue, _engine_v1_FlattenIssue__Output>;
      FlattenResponse: MessageTypeDefinition<_engine_v1_FlattenResponse, _engine_v1_FlattenResponse__Output>;
      FundingByAssetClass: MessageTypeDefinition<
        _engine_v1_FundingByAssetClass,
        _engine_v1_FundingByAssetClass__Output
      >;
      FundingPayment: MessageTypeDefinition<_engine_v1_FundingPayment, _engine_v1_FundingPayment__Output>;
      FundingReport: MessageTypeDefinition<_engine_v1_FundingReport, _engine_v1_FundingReport__Output>;
      GetCalendarRequest: MessageTypeDefinition<_engine_v1_GetCalendarRequest, _engine_v1_GetCalendarRequest__Output>;
      ListBreachesResponse: MessageTypeDefinition<
        _engine_v1_ListBreachesResponse,
        _engine_v1_ListBreachesResponse__Output
      >;
      ListClosedPositionsResponse: MessageTypeDefinition<
        _engine_v1_ListClosedPositionsResponse,
        _engine_v1_ListClosedPositionsResponse__Output
      >;
      ListDeliveriesRequest: MessageTypeDefinition<
        _engine_v1_ListDeliveriesRequest,
        _engine_v1_ListDeliveriesRequest__Output
      >;
      ListDeliveriesResponse: MessageTypeDefinition<
        _engine_v1_ListDeliveriesResponse,
        _engine_v1_ListDeliveriesResponse__Output
      >;
      ListEventsRequest: MessageTypeDefinition<_engine_v1_ListEventsRequest, _engine_v1_ListEventsRequest__Output>;
      ListEventsResponse: MessageTypeDefinition<_engine_v1_ListEventsResponse, _engine_v1_ListEventsResponse__Output>;
      ListFillsResponse: MessageTypeDefinition<_engine_v1_ListFillsResponse, _engine_v1_ListFillsResponse__Output>;
      ListOrderHistoryResponse: MessageTypeDefinition<
        _engine_v1_ListOrderHistoryResponse,
        _engine_v1_ListOrderHistoryResponse__Output
      >;
      ListOrdersResponse: MessageTypeDefinition<_engine_v1_ListOrdersResponse, _engine_v1_ListOrdersResponse__Output>;
      ListPlansRequest: MessageTypeDefinition<_engine_v1_ListPlansRequest, _engine_v1_ListPlansRequest__Output>;
      ListPlansResponse: MessageTypeDefinition<_engine_v1_ListPlansResponse, _engine_v1_ListPlansResponse__Output>;
      ListPositionsResponse: MessageTypeDefinition<
        _engine_v1_ListPositionsResponse,
        _engine_v1_ListPositionsResponse__Output
      >;
      ListRangeRequest: MessageTypeDefinition<_engine_v1_ListRangeRequest, _engine_v1_ListRangeRequest__Output>;
      ListTickersRequest: MessageTypeDefinition<_engine_v1_ListTickersRequest, _engine_v1_ListTickersRequest__Output>;
      ListTickersResponse: MessageTypeDefinition<
        _engine_v1_ListTickersResponse,
        _engine_v1_ListTickersResponse__Output
      >;
      ListViolationsResponse: MessageTypeDefinition<
        _engine_v1_ListViolationsResponse,
        _engine_v1_ListViolationsResponse__Output
      >;
      MaxLeverage: MessageTypeDefinition<_engine_v1_MaxLeverage, _engine_v1_MaxLeverage__Output>;
      NewsFreeze: MessageTypeDefinition<_engine_v1_NewsFreeze, _engine_v1_NewsFreeze__Output>;
      Order: MessageTypeDefinition<_engine_v1_Order, _engine_v1_Order__Output>;
      OrderRef: MessageTypeDefinition<_engine_v1_OrderRef, _engine_v1_OrderRef__Output>;
      OrderReply: MessageTypeDefinition<_engine_v1_OrderReply, _engine_v1_OrderReply__Output>;
      OrderResponse: MessageTypeDefinition<_engine_v1_OrderResponse, _engine_v1_OrderResponse__Output>;
      OrderTestResponse: MessageTypeDefinition<_engine_v1_OrderTestResponse, _engine_v1_OrderTestResponse__Output>;
      PlaceOrderRequest: MessageTypeDefinition<_engine_v1_PlaceOrderRequest, _engine_v1_PlaceOrderRequest__Output>;
      Plan: MessageTypeDefinition<_engine_v1_Plan, _engine_v1_Plan__Output>;
      Position: MessageTypeDefinition<_engine_v1_Position, _engine_v1_Position__Output>;
      RedeliverRequest: MessageTypeDefinition<_engine_v1_RedeliverRequest, _engine_v1_RedeliverRequest__Output>;
      RiskHeadroom: MessageTypeDefinition<_engine_v1_RiskHeadroom, _engine_v1_RiskHeadroom__Output>;
      RiskLimits: MessageTypeDefinition<_engine_v1_RiskLimits, _engine_v1_RiskLimits__Output>;
      SessionReply: MessageTypeDefinition<_engine_v1_SessionReply, _engine_v1_SessionReply__Output>;
      SessionRequest: MessageTypeDefinition<_engine_v1_SessionRequest, _engine_v1_SessionRequest__Output>;
      SetCancelAfterRequest: MessageTypeDefinition<
        _engine_v1_SetCancelAfterRequest,
        _engine_v1_SetCancelAfterRequest__Output
      >;
      Summary: MessageTypeDefinition<_engine_v1_Summary, _engine_v1_Summary__Output>;
      Ticker: MessageTypeDefinition<_engine_v1_Ticker, _engine_v1_Ticker__Output>;
      Violation: MessageTypeDefinition<_engine_v1_Violation, _engine_v1_Violation__Output>;
      ViolationRecord: MessageTypeDefinition<_engine_v1_ViolationRecord, _engine_v1_ViolationRecord__Output>;
      WatchAccountReply: MessageTypeDefinition<_engine_v1_WatchAccountReply, _engine_v1_WatchAccountReply__Output>;
      WatchAccountRequest: MessageTypeDefinition<
        _engine_v1_WatchAccountRequest,
        _engine_v1_WatchAccountRequest__Output
      >;
      WatchCatalogueRequest: MessageTypeDefinition<
        _engine_v1_WatchCatalogueRequest,
        _engine_v1_WatchCatalogueRequest__Output
      >;
      WatchTickersRequest: MessageTypeDefinition<
        _engine_v1_WatchTickersRequest,
        _engine_v1_WatchTickersRequest__Output
      >;
      WebhookEvent: MessageTypeDefinition<_engine_v1_WebhookEvent, _engine_v1_WebhookEvent__Output>;
    };
  };
}
