// GET /api/api-keys: the caller's active keys, never a secret or a hash.
import type { RequestHandler } from "express";
import type { Clients } from "../clients.js";
import { originOf } from "../http/trace.js";
import { keyJson, userIdOf } from "./shared.js";

export function listKeys(clients: Clients): RequestHandler {
  return async (req, res) => {
    const userId = userIdOf(req);
    const listed = await clients.wallet.listApiKeys(userId, originOf(res));
    res.status(200).json({ apiKeys: listed.api_keys.map((key) => keyJson(key, true)) });
  };
}
