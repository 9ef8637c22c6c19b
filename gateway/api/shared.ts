// Translation helpers of the /api listener: caller identity, proto ↔ camelCase JSON.
import type { Request } from "express";
import { ServiceError } from "../../kernel/errors.js";
import type { ApiKey__Output } from "../../proto/gen/wallet/v1/ApiKey.js";
import { fieldsOf } from "../json-fields.js";

export function userIdOf(req: Request): string {
  const userId = req.get("x-user-id");
  if (userId === undefined || userId.trim() === "") throw new ServiceError("unauthorized");
  return userId.trim();
}

/** proto field name → JSON field name of the /api surface (issue paths from the wallet use proto names). */
export const camel = (segment: string): string => segment.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

export function renameIssues(error: unknown): unknown {
  if (error instanceof ServiceError && Array.isArray(error.fields.issues)) {
    const issues = (error.fields.issues as { path: string; message: string }[]).map((i) => ({
      path: i.path.split(".").map(camel).join("."),
      message: i.message,
    }));
    return new ServiceError(error.code, { ...error.fields, issues }, error.message);
  }
  return error;
}

const keyFields = fieldsOf<ApiKey__Output>(
  [
    ["id", "key_prefix", "label", "permissions", "ip_whitelist"],
    ["webhook_url?", "expires_at?", "created_at"],
  ],
  camel,
);

export function keyJson(key: ApiKey__Output, withLastUsed: boolean): Record<string, unknown> {
  const json = keyFields(key);
  if (withLastUsed) json.lastUsedAt = key.last_used_at ?? null;
  return json;
}
