// GET /v1/account/:account_id/events?after=&limit= (docs/webhooks.md, "Catching up"): the account's webhook
// envelopes after a sequence, in order, exactly as a webhook delivers them to the calling key.
import type { RequestHandler } from "express";
import type { WebhookEvent__Output } from "../../proto/gen/engine/v1/WebhookEvent.js";
import type { Clients } from "../clients.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { accountRef } from "./account-ref.js";
import { callerOf } from "./auth.js";
import { EventsQuery } from "./schemas.js";

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
    const ref = accountRef(req, res);
    const query = parse(EventsQuery, req.query);
    const reply = await clients.engine.listEvents(
      { ...ref, after: query.after ?? 0, limit: query.limit ?? 0 },
      originOf(res),
    );
    const caller = callerOf(res);
    res.status(200).json({ data: reply.events.map((e) => envelopeJson(e, caller.keyId)), has_more: reply.has_more });
  };
}
