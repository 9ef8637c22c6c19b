// /v1/account/:account_id/cancel-after: the account's dead-man's switch (docs/risk.md, "Cancel-after"). POST arms,
// re-arms or disarms it (`timeout_ms`, 0 disarms) and GET reads it; both answer 200 with the switch as it then
// stands. Ownership is the engine's business: another user's account is 404 like an unknown one.
import type { RequestHandler } from "express";
import { z } from "zod";
import { cancelAfterIssues } from "../../kernel/cancel-after.js";
import type { CancelAfter__Output } from "../../proto/gen/engine/v1/CancelAfter.js";
import type { Clients } from "../clients.js";
import { bodyOf } from "../http/body.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { fieldsOf } from "../json-fields.js";
import { accountRef } from "./account-ref.js";

const cancelAfterJson = fieldsOf<CancelAfter__Output>([["account_id", "armed", "timeout_ms?", "deadline?"]]);

/** The body: a whole number of ms, 0 or within the bounds (the engine's uint32 field never truncates it). */
export const CancelAfterBody = z.strictObject({
  timeout_ms: z.unknown().transform((value, ctx) => {
    const issue = cancelAfterIssues(value)[0];
    if (issue === undefined) return value as number;
    ctx.addIssue({ code: "custom", message: value === undefined ? "required" : issue.message });
    return z.NEVER;
  }),
});

export function setCancelAfter(clients: Clients): RequestHandler {
  return async (req, res) => {
    const ref = accountRef(req, res);
    const body = parse(CancelAfterBody, bodyOf(req));
    const reply = await clients.engine.setCancelAfter({ ...ref, timeout_ms: body.timeout_ms }, originOf(res));
    res.status(200).json(cancelAfterJson(reply));
  };
}

export function getCancelAfter(clients: Clients): RequestHandler {
  return async (req, res) => {
    res.status(200).json(cancelAfterJson(await clients.engine.getCancelAfter(accountRef(req, res), originOf(res))));
  };
}
