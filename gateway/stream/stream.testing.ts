// What the stream's tests share (a test helper: production code never imports it).
import { WebSocket } from "ws";
import type { Validation } from "../../kernel/key-cache.js";

/** The credentials the tests' sockets present (the wallet double answers for them). */
export const KEY = { key: "pk_stream", secret: "sk_stream" };

/** The wallet's answer for a valid READ_ONLY key of user u1 that never expires. */
export const VALID: Validation = {
  valid: true,
  code: "",
  user_id: "u1",
  key_id: "key-1",
  permissions: ["READ_ONLY"],
  expires_at_ms: 0,
};

/** A socket of KEY on `url`; the HTTP status when the upgrade is refused. */
export function open(url: string): Promise<WebSocket | number> {
  const ws = new WebSocket(url, { headers: { "X-API-Key": KEY.key, "X-API-Secret": KEY.secret } });
  return new Promise((resolve, reject) => {
    ws.once("open", () => {
      resolve(ws);
    });
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.once("error", reject);
  });
}
