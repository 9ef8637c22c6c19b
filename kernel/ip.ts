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
