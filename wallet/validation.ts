// What a key validation answers. Its own module so the key index can build each key's answers once, when the
// key is indexed: a validation then returns one of these frozen objects instead of building a new one, and the
// gRPC layer can reuse the response bytes it encoded for the same object (kernel/wallet-codec.ts).

export const DENIALS = ["unauthorized", "ip_not_whitelisted", "permission_denied"] as const;
export type Denial = (typeof DENIALS)[number];

export interface Granted {
  readonly valid: true;
  readonly userId: string;
  readonly keyId: string;
  readonly permissions: readonly string[];
  readonly ipWhitelist: readonly string[];
  readonly expiresAtMs: number | null;
}

export interface Unauthorized {
  readonly valid: false;
  readonly code: "unauthorized";
}

/** A known key refused for the address or the scope: the caller learns whose key it was (for audit). */
export interface Refused {
  readonly valid: false;
  readonly code: "ip_not_whitelisted" | "permission_denied";
  readonly userId: string;
  readonly keyId: string;
}

export type Validation = Granted | Unauthorized | Refused;

/** The one answer for an unknown key, a wrong secret, an expired key or a malformed request. */
export const UNAUTHORIZED: Unauthorized = Object.freeze({ valid: false, code: "unauthorized" });

/** A key's three possible answers besides `UNAUTHORIZED`, frozen. */
export interface KeyAnswers {
  readonly granted: Granted;
  readonly ipDenied: Refused;
  readonly scopeDenied: Refused;
}

export function keyAnswers(key: {
  id: string;
  userId: string;
  permissions: readonly string[];
  ipWhitelist: readonly string[];
  expiresAtMs: number | null;
}): KeyAnswers {
  const { id: keyId, userId } = key;
  return Object.freeze({
    granted: Object.freeze({
      valid: true,
      userId,
      keyId,
      permissions: key.permissions,
      ipWhitelist: key.ipWhitelist,
      expiresAtMs: key.expiresAtMs,
    }),
    ipDenied: Object.freeze({ valid: false, code: "ip_not_whitelisted", userId, keyId }),
    scopeDenied: Object.freeze({ valid: false, code: "permission_denied", userId, keyId }),
  });
}
