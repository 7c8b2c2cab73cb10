import { isIPv4, isIPv6 } from "node:net";

// The one grammar of a WireGuard endpoint, shared by the configuration (VPN_ENDPOINT) and the
// operator's server commands: a client must be able to dial it as written.

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export const ENDPOINT_RULE =
  "endpoint must be host:port, such as vpn.example.com:51820, 203.0.113.10:51820 or [2001:db8::1]:51820 (IPv6 in brackets, port 1-65535)";

function isEndpointHost(bracketed: string | undefined, plain: string | undefined): boolean {
  if (bracketed !== undefined) return isIPv6(bracketed);
  if (plain === undefined) return false;
  // Digits and dots only is meant as IPv4: 300.1.1.1 is refused, not taken for a host name.
  return /^[\d.]+$/.test(plain) ? isIPv4(plain) : HOST_NAME.test(plain);
}

/** Whether a WireGuard client can dial `endpoint`: a host name, IPv4 or [IPv6], and a port. */
export function isEndpoint(endpoint: string): boolean {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(endpoint);
  const port = Number(match?.[3]);
  return Boolean(match) && isEndpointHost(match?.[1], match?.[2]) && port >= 1 && port <= 65_535;
}
