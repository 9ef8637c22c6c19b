// Joining a host and a port into one address string (gRPC targets and binds, URLs): an IPv6 literal goes in
// brackets (`[::1]:50051`), since `::1:50051` reads as an address with no port.
import { isIP } from "node:net";

/** `host:port`, or `[host]:port` when `host` is an IPv6 literal (given bare; an already bracketed one is kept). */
export function joinHostPort(host: string, port: number | string): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}
