// The client's public surface: import from "@funded-trading/client" (or client/src/index.ts).
export { KeysClient, OPERATIONS, TradingClient } from "./client.js";
export type { KeysClientOptions, TradingClientOptions } from "./client.js";
export type { BatchResult, PlaceOptions, Reply, TradingOp } from "./calls.js";
export {
  ApiError,
  ERROR_CODES,
  ERROR_STATUS,
  NetworkError,
  RedirectError,
  SessionClosedError,
  ThrottledError,
  isErrorCode,
} from "./errors.js";
export type { ErrorCode } from "./errors.js";
export { roundPrice, roundQuantity, roundToStep, toDecimal } from "./decimal.js";
export type { Rounding } from "./decimal.js";
export { Pacer, parsePolicy, parseRateLimit } from "./pacer.js";
export type { PacerStats, Policy } from "./pacer.js";
export type { Placement, TestResult } from "./results.js";
export { AdaptiveThrottle } from "./throttle.js";
export type { ThrottleOptions, ThrottleStats } from "./throttle.js";
export { Transport } from "./transport.js";
export type { RetryEvent, RetryOptions, TransportOptions } from "./transport.js";
export { verifyWebhook, WebhookVerificationError } from "./webhooks.js";
export type * from "./types.js";
export { TradingSession } from "./session.js";
export type { SessionOptions } from "./session.js";
export { Subscription } from "./subscription.js";
