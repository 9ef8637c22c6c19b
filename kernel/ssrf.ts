// Webhook targets must be public (docs/webhooks.md, "Security"): an address in any of these ranges is refused
// unless WEBHOOK_ALLOW_PRIVATE=true. The wallet refuses such IP literals when a key is created; the dispatcher
// checks every address a host name resolves to at connect time, so DNS rebinding cannot slip past it.
import { BlockList, isIP } from "node:net";
import { unmapIPv4 } from "./ip.js";

const NON_PUBLIC = new BlockList();
for (const [range, bits] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata lives here)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  NON_PUBLIC.addSubnet(range, bits, "ipv4");
}
for (const [range, bits] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  NON_PUBLIC.addSubnet(range, bits, "ipv6");
}

/** Whether an IP address is loopback, private, link-local, multicast or otherwise not publicly routable. */
export function isNonPublicAddress(address: string): boolean {
  const plain = unmapIPv4(address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address);
  const family = isIP(plain);
  if (family === 0) return true; // not an address at all: never treat it as public
  if (family === 4) return NON_PUBLIC.check(plain, "ipv4");
  // IPv4-compatible / NAT64 well-known prefix forms carrying a v4 address are judged by that address.
  const nat64 = /^64:ff9b::(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(plain);
  if (nat64?.[1] !== undefined) return NON_PUBLIC.check(nat64[1], "ipv4");
  return NON_PUBLIC.check(plain, "ipv6");
}
