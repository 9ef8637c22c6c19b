// GET /v1/account/:account_id/events?after=&limit= (docs/webhooks.md, "Catching up"): the account's webhook
// envelopes after a sequence, in order, exactly as a webhook delivers them to the calling key.
import type { RequestHandler } from "express";
import { ServiceError } from "../../kernel/errors.js";
import type { WebhookEvent__Output } from "../../proto/gen/engine/v1/WebhookEvent.js";
import type { Clients } from "../clients.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { callerOf } from "./auth.js";
import { EventsQuery, isUuid } from "./schemas.js";

/** The webhook envelope (`WebhookEnvelope` in docs/openapi.yaml), `data` parsed back from the stored JSON text. */
export function envelopeJson(event: WebhookEvent__Output, apiKeyId: string): Record<string, unknown> {
  return {
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    account_id: event.account_id,
    api_key_id: apiKeyId,
    sequence: event.sequence,
    data: JSON.parse(event.data_json) as unknown,
  };
}

export function listEvents(clients: Clients): RequestHandler {
  return async (req, res) => {
    const accountId = typeof req.params.account_id === "string" ? req.params.account_id : "";
    if (!isUuid(accountId)) throw new ServiceError("not_found");
    const query = parse(EventsQuery, req.query);
    const caller = callerOf(res);
    const reply = await clients.engine.listEvents(
      { user_id: caller.userId, account_id: accountId.toLowerCase(), after: query.after ?? 0, limit: query.limit ?? 0 },
      originOf(res),
    );
    res.status(200).json({ data: reply.events.map((e) => envelopeJson(e, caller.keyId)), has_more: reply.has_more });
  };
}
