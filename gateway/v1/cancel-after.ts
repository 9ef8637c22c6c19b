// /v1/account/:account_id/cancel-after: the account's dead-man's switch (docs/risk.md, "Cancel-after"). POST arms,
// re-arms or disarms it (`timeout_ms`, 0 disarms; the operation is shared with the stream, gateway/v1/trading-ops.ts)
// and GET reads it; both answer 200 with the switch as it then stands. Ownership is the engine's business: another
// user's account is 404 like an unknown one.
import type { RequestHandler } from "express";
import type { Clients } from "../clients.js";
import { bodyOf } from "../http/body.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { accountRef } from "./account-ref.js";
import { pathParam, restOp } from "./orders.js";
import { CancelAfterBody, cancelAfterJson, cancelAfterOp, pathId } from "./trading-ops.js";

export const setCancelAfter = restOp(cancelAfterOp, (req) => ({
  accountId: pathId(pathParam(req, "account_id")),
  timeoutMs: parse(CancelAfterBody, bodyOf(req)).timeout_ms,
}));

export function getCancelAfter(clients: Clients): RequestHandler {
  return async (req, res) => {
    res.status(200).json(cancelAfterJson(await clients.engine.getCancelAfter(accountRef(req, res), originOf(res))));
  };
}
