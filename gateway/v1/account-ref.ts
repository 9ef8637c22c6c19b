// The account a /v1/account/:account_id route names, with the caller asking about it.
import type { Request, Response } from "express";
import { ServiceError } from "../../kernel/errors.js";
import { callerOf } from "./auth.js";
import { isUuid } from "./schemas.js";

/** The path's account id; a malformed one cannot name an account, so it is 404 like an unknown one. */
export function accountRef(req: Request, res: Response): { user_id: string; account_id: string } {
  const accountId = typeof req.params.account_id === "string" ? req.params.account_id : "";
  if (!isUuid(accountId)) throw new ServiceError("not_found");
  return { user_id: callerOf(res).userId, account_id: accountId.toLowerCase() };
}
