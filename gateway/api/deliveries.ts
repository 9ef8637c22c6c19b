// The delivery log of one key (docs/webhooks.md, "Delivery log"): GET /api/api-keys/:id/deliveries and
// POST /api/api-keys/:id/deliveries/:delivery_id/redeliver. A key that is not one of the caller's active
// keys is 404, like everywhere on /api.
import type { Request, RequestHandler, Response } from "express";
import { ServiceError } from "../../kernel/errors.js";
import type { Delivery__Output } from "../../proto/gen/engine/v1/Delivery.js";
import type { Clients } from "../clients.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { DeliveriesQuery, isUuid } from "../v1/schemas.js";
import { fieldsOf } from "../json-fields.js";
import { camel, userIdOf } from "./shared.js";

type Attempt = Delivery__Output["attempt_log"][number];
const attemptJson = fieldsOf<Attempt>([["attempt", "started_at", "status_code?", "error?", "latency_ms"]], camel);
const deliveryFields = fieldsOf<Delivery__Output>(
  [
    ["delivery_id", "event_id", "event_type", "account_id", "sequence", "url"],
    ["status", "attempts", "next_attempt_at?"],
    ["last_status_code?", "last_error?", "last_latency_ms?"],
    ["created_at", "updated_at", "attempt_log"],
  ],
  camel,
);

export function deliveryJson(d: Delivery__Output): Record<string, unknown> {
  const json = deliveryFields(d);
  json.attemptLog = d.attempt_log.map(attemptJson);
  return json;
}

/**
 * The path's key id, once the wallet (the owner of keys) confirmed it is one of the caller's active keys: it
 * answers `not_found` for any other id.
 */
async function ownedKey(clients: Clients, req: Request, res: Response): Promise<{ userId: string; keyId: string }> {
  const userId = userIdOf(req);
  const keyId = typeof req.params.id === "string" ? req.params.id.toLowerCase() : "";
  if (!isUuid(keyId)) throw new ServiceError("not_found");
  const key = await clients.wallet.getApiKey(userId, keyId, originOf(res));
  return { userId, keyId: key.id };
}

export function listDeliveries(clients: Clients): RequestHandler {
  return async (req, res) => {
    // Who asks and whether the key is theirs come first: 401 and 404 before any 400.
    const { userId, keyId } = await ownedKey(clients, req, res);
    const query = parse(DeliveriesQuery, req.query);
    const reply = await clients.engine.listDeliveries(
      { user_id: userId, api_key_id: keyId, limit: query.limit ?? 0, before: query.before?.toLowerCase() ?? "" },
      originOf(res),
    );
    res.status(200).json({ deliveries: reply.deliveries.map(deliveryJson), hasMore: reply.has_more });
  };
}

export function redeliver(clients: Clients): RequestHandler {
  return async (req, res) => {
    const { userId, keyId } = await ownedKey(clients, req, res);
    const deliveryId = typeof req.params.delivery_id === "string" ? req.params.delivery_id.toLowerCase() : "";
    if (!isUuid(deliveryId)) throw new ServiceError("not_found");
    const delivery = await clients.engine.redeliver(
      { user_id: userId, api_key_id: keyId, delivery_id: deliveryId },
      originOf(res),
    );
    res.status(202).json({ delivery: deliveryJson(delivery) });
  };
}
