// Names for the generated schema types (client/src/generated/openapi.ts), so callers never spell
// `components["schemas"][…]`.
import type { components, operations } from "./generated/openapi.js";

type Schemas = components["schemas"];
export type Query<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;

export type CreateApiKeyRequest = Schemas["CreateApiKeyRequest"];
export type CreateApiKeyResponse = Schemas["CreateApiKeyResponse"];
export type ApiKey = Schemas["ApiKey"];
export type ApiKeyList = Schemas["ApiKeyList"];
export type RevokedApiKey = Schemas["RevokedApiKey"];
export type ValidateApiKeyRequest = Schemas["ValidateApiKeyRequest"];
export type ValidateApiKeyResponse = Schemas["ValidateApiKeyResponse"];
export type DeliveryPage = Schemas["DeliveryPage"];
export type Delivery = Schemas["Delivery"];
export type Ticker = Schemas["Ticker"];
export type Plan = Schemas["Plan"];
export type Calendar = Schemas["Calendar"];
export type CreateAccountRequest = Schemas["CreateAccountRequest"];
export type Account = Schemas["Account"];
export type AccountSummary = Schemas["AccountSummary"];
export type Position = Schemas["Position"];
export type ClosedPosition = Schemas["ClosedPosition"];
export type ClosedPositionPage = Schemas["ClosedPositionPage"];
export type Fill = Schemas["Fill"];
export type FillPage = Schemas["FillPage"];
export type WorkingOrder = Schemas["WorkingOrder"];
export type FundingReport = Schemas["FundingReport"];
export type Breach = Schemas["Breach"];
export type ViolationRecord = Schemas["ViolationRecord"];
export type Analytics = Schemas["Analytics"];
export type WebhookEnvelope = Schemas["WebhookEnvelope"];
export type WebhookEventPage = Schemas["WebhookEventPage"];
export type PlaceOrderRequest = Schemas["PlaceOrderRequest"];
export type ClosePositionRequest = Schemas["ClosePositionRequest"];
export type AmendOrderRequest = Schemas["AmendOrderRequest"];
export type Order = Schemas["Order"];
export type OrderResponse = Schemas["OrderResponseFields"];
export type OrderTestResponse = Schemas["OrderTestResponse"];
export type Violation = Schemas["Violation"];
export type RiskHeadroom = Schemas["RiskHeadroom"];
export type TickerList = Schemas["TickerList"];
export type PlanList = Schemas["PlanList"];
export type PositionList = Schemas["PositionList"];
export type WorkingOrderList = Schemas["WorkingOrderList"];
export type BreachList = Schemas["BreachList"];
export type ViolationRecordList = Schemas["ViolationRecordList"];
