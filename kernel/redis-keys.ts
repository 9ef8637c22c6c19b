// Redis key names shared by processes that never import each other (wallet writes, gateway reads).
export const REDIS_PREFIX = "fts:";

/** Set by the wallet when a key is revoked; the gateway's rate-limit script refuses the key once it exists. */
export const revokedMarkerKey = (keyId: string, prefix = REDIS_PREFIX): string => `${prefix}revoked:${keyId}`;

/**
 * The gateway's log of a key's accepted requests (gateway/ratelimit/redis.ts). Its hash tag is the revoked marker's
 * whole name, so the two keys the rate-limit script touches hash to one Redis Cluster slot while the marker,
 * which lives for days, keeps its name. Key ids are UUIDs: no brace in them moves a hash tag.
 */
export const rateLimitLogKey = (keyId: string, prefix = REDIS_PREFIX): string =>
  `${prefix}rl:{${revokedMarkerKey(keyId, prefix)}}`;

/** How long the marker outlives the revocation: far longer than any cache or in-flight request. */
export const REVOKED_MARKER_TTL_SECONDS = 7 * 24 * 3600;

export const REVOCATION_CHANNEL = `${REDIS_PREFIX}wallet:revocations`;
export const REVOCATION_ACK_CHANNEL = `${REDIS_PREFIX}wallet:revocation-acks`;

/**
 * Failed /v1 authentications from one source (an IPv4 address or an IPv6 /64, kernel/ip.ts `sourceBlock`),
 * counted by every gateway (gateway/v1/auth-failures-redis.ts); it expires with its window.
 */
export const authFailureKey = (source: string, prefix = REDIS_PREFIX): string => `${prefix}authfail:${source}`;
