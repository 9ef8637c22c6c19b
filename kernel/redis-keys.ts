// Redis key names shared by processes that never import each other (wallet writes, gateway reads).
export const REDIS_PREFIX = "fts:";

/** Set by the wallet when a key is revoked; the gateway's rate-limit script refuses the key once it exists. */
export const revokedMarkerKey = (keyId: string, prefix = REDIS_PREFIX): string => `${prefix}revoked:${keyId}`;

/** How long the marker outlives the revocation: far longer than any cache or in-flight request. */
export const REVOKED_MARKER_TTL_SECONDS = 7 * 24 * 3600;

export const REVOCATION_CHANNEL = `${REDIS_PREFIX}wallet:revocations`;
export const REVOCATION_ACK_CHANNEL = `${REDIS_PREFIX}wallet:revocation-acks`;
