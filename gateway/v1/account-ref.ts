// The account a /v1/account/:account_id route names, with the caller asking about it.
import type { Request, Response } from "express";
import { callerOf } from "./auth.js";
import { pathParam } from "./orders.js";
import { pathId } from "./trading-ops.js";

/** The path's account id; a malformed one cannot name an account, so it is 404 like an unknown one. */
export function accountRef(req: Request, res: Response): { user_id: string; account_id: string } {
  return { user_id: callerOf(res).userId, account_id: pathId(pathParam(req, "account_id")) };
}
