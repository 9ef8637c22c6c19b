// DELETE /api/api-keys/:id: revocation is effective on every replica before this returns.
import type { RequestHandler } from "express";
import type { Clients } from "../clients.js";
import { originOf } from "../http/trace.js";
import { userIdOf } from "./shared.js";

export function revokeKey(clients: Clients, onRevoked: (keyId: string) => Promise<void>): RequestHandler {
  return async (req, res) => {
    const userId = userIdOf(req);
    const id = typeof req.params.id === "string" ? req.params.id : "";
    const revoked = await clients.wallet.revokeApiKey(userId, id, originOf(res));
    await onRevoked(revoked.id);
    res.status(200).json({ id: revoked.id, revokedAt: revoked.revoked_at });
  };
}
