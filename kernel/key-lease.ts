// Timing of the gateway key-cache lease (wallet/watchers.ts, kernel/key-cache.ts): shared so both sides
// agree. The wallet outwaits LEASE_MS; the gateway pings every PING_MS and trusts its cache for LEASE_MS
// from the send time of its newest answered ping.
export const KEY_LEASE_MS = 1_500;
export const KEY_LEASE_PING_MS = 500;
