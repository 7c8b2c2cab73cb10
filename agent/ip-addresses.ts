// Addresses as the node API writes them: CIDRs, one canonical text per IP address, a server's exit
// addresses, and the check that a peer's allowed IPs lie in its server's pools. Self-contained,
// like node-api.ts: the agent is bundled alone.
import { BlockList, isIP, isIPv4, isIPv6, SocketAddress } from "node:net";
import { z } from "zod";

export function parseCidr(text: string): { address: string; prefix: number; family: 4 | 6 } | null {
  const [address, prefixText, extra] = text.split("/");
  if (!address || !prefixText || extra !== undefined || !/^[0-9]{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (isIPv4(address) && prefix <= 32) return { address, prefix, family: 4 };
  if (isIPv6(address) && prefix <= 128) return { address, prefix, family: 6 };
  return null;
}

export const cidrOf = (family: 4 | 6) =>
  z.string().refine((text) => parseCidr(text)?.family === family, `must be an IPv${family} CIDR`);

/**
 * One way to write each address, so a visitor's address and a server's exit address compare as
 * strings: IPv6 as RFC 5952 text (lower case, zeros compressed), an IPv4-mapped IPv6 address as
 * its IPv4 address. Null for anything that is not a plain IP address (a zone id included).
 */
export function canonicalIpAddress(text: string): string | null {
  if (text.includes("%")) return null;
  const family = isIP(text);
  if (family === 4) return text;
  if (family !== 6) return null;
  const canonical = new SocketAddress({ address: text, family: "ipv6" }).address;
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(canonical)?.[1] ?? canonical;
}

export const MAX_EXIT_ADDRESSES = 16;

/**
 * Addresses no traffic leaves a host from: unspecified, loopback, link-local, multicast and
 * (IPv4) broadcast. A node reporting one would make /check call every visitor with that address
 * (a proxy's own loopback, say) connected.
 */
const NOT_EXIT_ADDRESSES = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["224.0.0.0", 4],
  ["255.255.255.255", 32],
] as const)
  NOT_EXIT_ADDRESSES.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  NOT_EXIT_ADDRESSES.addSubnet(network, prefix, "ipv6");

/** A server's public exit addresses (IPv4 and/or IPv6), canonical and without repeats. */
export const exitAddressesSchema = z
  .array(
    z
      .string()
      .max(64)
      .transform((text, context) => {
        const canonical = canonicalIpAddress(text);
        if (!canonical) {
          context.addIssue({
            code: "custom",
            message: `${JSON.stringify(text)} is not an IPv4 or IPv6 address`,
          });
          return z.NEVER;
        }
        if (NOT_EXIT_ADDRESSES.check(canonical, isIPv4(canonical) ? "ipv4" : "ipv6")) {
          context.addIssue({
            code: "custom",
            message: `${canonical} cannot be an exit address: it is unspecified, loopback, link-local, multicast or broadcast`,
          });
          return z.NEVER;
        }
        return canonical;
      }),
  )
  .max(MAX_EXIT_ADDRESSES, `at most ${MAX_EXIT_ADDRESSES} exit addresses`)
  .transform((addresses) => [...new Set(addresses)]);

/** Checks each peer's allowed IPs: exactly one /32 in the IPv4 pool and one /128 in the IPv6 pool. */
export function poolChecker(server: { ipv4Pool: string; ipv6Pool: string }) {
  const v4 = new BlockList();
  const v6 = new BlockList();
  const pool4 = parseCidr(server.ipv4Pool)!;
  const pool6 = parseCidr(server.ipv6Pool)!;
  v4.addSubnet(pool4.address, pool4.prefix, "ipv4");
  v6.addSubnet(pool6.address, pool6.prefix, "ipv6");
  return (allowedIps: readonly string[]): boolean => {
    let has4 = false;
    let has6 = false;
    for (const cidr of allowedIps) {
      const parsed = parseCidr(cidr);
      if (parsed?.family === 4 && parsed.prefix === 32 && !has4 && v4.check(parsed.address, "ipv4"))
        has4 = true;
      else if (parsed?.family === 6 && parsed.prefix === 128 && !has6 && v6.check(parsed.address, "ipv6"))
        has6 = true;
      else return false;
    }
    return has4 && has6;
  };
}
