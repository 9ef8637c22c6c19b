// POST /api/api-keys: create a key; the secret (and webhook secret) appear in this response only.
import type { RequestHandler } from "express";
import { z } from "zod";
import { fromGrpcError } from "../../kernel/errors.js";
import type { Clients } from "../clients.js";
import { bodyOf } from "../http/body.js";
import { originOf } from "../http/trace.js";
import { parse } from "../http/validation.js";
import { keyJson, renameIssues, userIdOf } from "./shared.js";

const CreateKeyBody = z.strictObject({
  label: z.string(),
  permissions: z.array(z.string()),
  ipWhitelist: z.array(z.string()).optional(),
  webhookUrl: z.string().optional(),
  expiresAt: z.string().optional(),
});

export function createKey(clients: Clients): RequestHandler {
  return async (req, res) => {
    const userId = userIdOf(req);
    const body = parse(CreateKeyBody, bodyOf(req));
    try {
      const created = await clients.wallet.createApiKey(
        {
          user_id: userId,
          label: body.label,
          permissions: body.permissions,
          ip_whitelist: body.ipWhitelist ?? [],
          webhook_url: body.webhookUrl,
          expires_at: body.expiresAt,
        },
        originOf(res),
      );
      const apiKey = created.api_key;
      if (apiKey === null) throw new Error("wallet returned no api_key");
      const json: Record<string, unknown> = {
        apiKey: keyJson(apiKey, false),
        key: created.key,
        secret: created.secret,
      };
      if (created.webhook_secret !== undefined) json.webhookSecret = created.webhook_secret;
      res.status(201).json(json);
    } catch (error) {
      throw renameIssues(fromGrpcError(error));
    }
  };
}
