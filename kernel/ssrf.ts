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
  if (NON_PUBLIC.check(plain, "ipv6")) return true;
  // Forms that carry an IPv4 address are judged by that address too, in whatever notation they came
  // (the URL parser writes them in hex: "[64:ff9b::a9fe:a9fe]" is 169.254.169.254).
  const embedded = embeddedIPv4(plain);
  return embedded !== undefined && NON_PUBLIC.check(embedded, "ipv4");
}

/**
 * The IPv4 address inside an IPv6 address of the NAT64 well-known prefix (64:ff9b::/96), the deprecated
 * IPv4-compatible form (::/96) or 6to4 (2002::/16, the address in bits 16–47); undefined for any other.
 */
export function embeddedIPv4(address: string): string | undefined {
  const words = ipv6Words(address);
  if (words === undefined) return undefined;
  const v4 = (high: number, low: number): string => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeroUpTo = (n: number): boolean => words.slice(0, n).every((w) => w === 0);
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) {
    return v4(words[6] ?? 0, words[7] ?? 0);
  }
  if (zeroUpTo(6)) return v4(words[6] ?? 0, words[7] ?? 0);
  if (words[0] === 0x2002) return v4(words[1] ?? 0, words[2] ?? 0);
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (a trailing dotted IPv4 part allowed); undefined if malformed. */
function ipv6Words(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.split("%")[0] ?? "";
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  const parse = (part: string | undefined): number[] =>
    part === undefined || part === "" ? [] : part.split(":").map((w) => Number.parseInt(w, 16));
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const words =
    halves.length === 2 ? [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail] : head;
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}
