// What the stream's tests share (a test helper: production code never imports it).
import type { Validation } from "../../kernel/key-cache.js";

/** The wallet's answer for a valid READ_ONLY key of user u1 that never expires. */
export const VALID: Validation = {
  valid: true,
  code: "",
  user_id: "u1",
  key_id: "key-1",
  permissions: ["READ_ONLY"],
  expires_at_ms: 0,
};
