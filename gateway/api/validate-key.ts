// POST /api/api-keys/validate: the validation the seed says the engine calls, over REST. It refuses what `/v1`
// refuses: the wallet's answer, and a key the gateways' limiter has marked revoked (the revoking wallet sets
// that mark; a wallet replica that has not applied the revocation yet would still answer valid). A key that
// lacks the `permission` asked for is `403 permission_denied` naming it (`required_scope`), as on /v1.
import type { RequestHandler } from "express";
import { z } from "zod";
import { ServiceError, fromGrpcError } from "../../kernel/errors.js";
import { isScope } from "../../kernel/scopes.js";
import type { Clients } from "../clients.js";
import { bodyOf } from "../http/body.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { renameIssues } from "./shared.js";

const ValidateBody = z.strictObject({
  key: z.string(),
  secret: z.string(),
  ip: z.string(),
  permission: z.string().optional(),
});

const DENIAL_CODES = ["unauthorized", "ip_not_whitelisted", "permission_denied"] as const;

export function validateKey(
  clients: Clients,
  isRevoked: ((keyId: string) => Promise<boolean>) | undefined,
): RequestHandler {
  return async (req, res) => {
    const body = parse(ValidateBody, bodyOf(req));
    let result;
    try {
      result = await clients.wallet.validateApiKey(
        { key: body.key, secret: body.secret, ip: body.ip, permission: body.permission ?? "" },
        originOf(res),
      );
    } catch (error) {
      throw renameIssues(fromGrpcError(error));
    }
    if (result.key_id !== "" && isRevoked !== undefined && (await isRevoked(result.key_id))) {
      throw new ServiceError("unauthorized");
    }
    if (!result.valid) {
      const code = DENIAL_CODES.find((c) => c === result.code) ?? "unauthorized";
      const permission = body.permission ?? "";
      // The wallet refuses a permission that is not a scope (400) before it checks one.
      if (code === "permission_denied" && isScope(permission)) throw ServiceError.missingScope(permission);
      throw new ServiceError(code);
    }
    res
      .status(200)
      .json({ valid: true, userId: result.user_id, keyId: result.key_id, permissions: result.permissions });
  };
}
