// Source-IP matching shared by the wallet (key allow-lists) and the gateway (TRUSTED_PROXIES): single addresses
// or CIDR ranges, IPv4 and IPv6. IPv4-mapped IPv6 addresses
// (`::ffff:1.2.3.4`) are treated as the IPv4 address they carry, on both sides.
import { BlockList, isIP } from "node:net";

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `::ffff:1.2.3.4` → `1.2.3.4`; anything else unchanged. */
export function unmapIPv4(address: string): string {
  const match = MAPPED_V4.exec(address);
  return match?.[1] ?? address;
}

/** Returns an error message for a malformed entry, or undefined when it is a valid address or CIDR. */
export function checkEntry(entry: string): string | undefined {
  const [address = "", prefix, extra] = entry.split("/");
  if (extra !== undefined) return "must be an IP address or CIDR range";
  if (address.includes("%")) return "must not carry an IPv6 zone id";
  const plain = unmapIPv4(address);
  const family = isIP(plain);
  if (family === 0) return "must be an IP address or CIDR range";
  if (prefix === undefined) return undefined;
  if (!/^\d{1,3}$/.test(prefix)) return "CIDR prefix length must be a number";
  const bits = Number(prefix);
  const max = family === 4 ? 32 : 128;
  if (plain !== address && family === 4) {
    // ::ffff:a.b.c.d/n: the prefix counts the 96 mapping bits.
    if (bits < 96 || bits > 128) return "CIDR prefix length out of range for an IPv4-mapped range";
    return undefined;
  }
  if (bits > max) return `CIDR prefix length must be at most ${max}`;
  return undefined;
}

export interface AllowList {
  allows(address: string): boolean;
}

/** Builds a matcher; entries must have passed `checkEntry`. An empty list allows every address. */
export function compileAllowList(entries: readonly string[]): AllowList {
  if (entries.length === 0) return { allows: () => true };
  const list = new BlockList();
  for (const entry of entries) {
    const [rawAddress = "", prefix] = entry.split("/");
    const address = unmapIPv4(rawAddress);
    const family = isIP(address) === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) {
      list.addAddress(address, family);
    } else {
      let bits = Number(prefix);
      if (address !== rawAddress) bits -= 96;
      list.addSubnet(address, bits, family);
    }
  }
  return {
    allows(candidate: string): boolean {
      const address = unmapIPv4(candidate);
      const family = isIP(address);
      if (family === 0) return false;
      return list.check(address, family === 4 ? "ipv4" : "ipv6");
    },
  };
}

/**
 * The block a client address is counted as when limiting by source: an IPv4 address itself (also when IPv4-mapped,
 * `::ffff:1.2.3.4` or `::ffff:102:304`), an IPv6 address's /64 (`2001:db8:0:1::/64`: one host, one customer link,
 * is handed a whole /64, so its 2^64 addresses are one source), zone id ignored. Anything else is itself.
 */
export function sourceBlock(address: string): string {
  const plain = unmapIPv4(address);
  if (isIP(plain) === 4) return plain;
  const groups = ipv6Groups(address.split("%")[0] ?? "");
  if (groups === undefined) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (`::` and a dotted IPv4 tail expanded), or undefined if it is none. */
function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address;
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (tail !== null) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const split = (part: string): string[] => (part === "" ? [] : part.split(":"));
  const before = split(head);
  const after = rest === undefined ? [] : split(rest);
  const zeros = 8 - before.length - after.length;
  return [...before, ...Array<string>(zeros).fill("0"), ...after].map((g) => parseInt(g, 16));
}
