// What an order placement answers, as data: accepted or rejected by a risk rule. A rejection (`violations`
// not empty, whatever the status) is neither an exception nor a success; callers switch on `kind`.
import type { OrderResponse, OrderTestResponse, Violation } from "./types.js";

export type Placement =
  | {
      kind: "accepted";
      response: OrderResponse;
      /** The answer is the original one to an earlier request with the same `client_id` (`Idempotent-Replayed`). */
      replayed: boolean;
      clientId: string;
      attempts: number;
    }
  | {
      kind: "rejected";
      response: OrderResponse;
      violations: Violation[];
      replayed: boolean;
      clientId: string;
      attempts: number;
    };

export type TestResult =
  | { kind: "accepted"; response: OrderTestResponse }
  | { kind: "rejected"; response: OrderTestResponse; violations: Violation[] };

export function placement(response: OrderResponse, replayed: boolean, clientId: string, attempts: number): Placement {
  if (response.violations.length > 0) {
    return { kind: "rejected", response, violations: response.violations, replayed, clientId, attempts };
  }
  return { kind: "accepted", response, replayed, clientId, attempts };
}

export function testResult(response: OrderTestResponse): TestResult {
  if (response.violations.length > 0) return { kind: "rejected", response, violations: response.violations };
  return { kind: "accepted", response };
}
