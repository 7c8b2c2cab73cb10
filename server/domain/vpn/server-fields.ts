// The one grammar of every VPN server setting that reaches a client's config or a node (issue 25).
// Each entry point parses with these: the staff API, `npm run vpn` (both its paths), the node's
// reports, and every row read back from the database before a config is rendered. A value that
// could change what a config means (a line break that starts a `PostUp =` line) is refused
// wherever it comes from. A new setting is one more entry in `vpnServerFields` (and, if it
// reaches the client's config, in `configServerSchema`).
import { isIPv4, isIPv6 } from "node:net";
import { z } from "zod";
import {
  alternatePortsSchema,
  canonicalIpAddress,
  clientMtuSchema,
  exitAddressesSchema,
  wireGuardKeySchema,
} from "#agent/node-api.ts";
import { isValidPool } from "./addresses.ts";

// A WireGuard endpoint: the configuration's VPN_ENDPOINT takes the same grammar as a server's.

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

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Resolvers a config's `DNS =` line may name. */
export const MAX_DNS_SERVERS = 4;

export const DNS_RULE = `dns must be 1 to ${MAX_DNS_SERVERS} IP addresses separated by commas, such as 1.1.1.1, 2606:4700:4700::1111`;

/**
 * Plain IP addresses only, written canonically and joined with ", ". WireGuard's `DNS =` would
 * also take search domains; a config of ours never needs one, so no name is accepted.
 */
export const dnsSchema = z
  .string()
  .max(300)
  .transform((text, context) => {
    // Spaces around the commas only: any other white space (a line break) is refused.
    const entries = text.split(",").map((entry) => entry.replace(/^ +| +$/g, ""));
    const addresses = entries.map((entry) =>
      /^[0-9A-Fa-f:.]+$/.test(entry) ? canonicalIpAddress(entry) : null,
    );
    if (entries.length > MAX_DNS_SERVERS || addresses.some((address) => address === null)) {
      context.addIssue({ code: "custom", message: DNS_RULE });
      return z.NEVER;
    }
    return [...new Set(addresses)].join(", ");
  });

const poolSchema = (family: 4 | 6) =>
  z
    .string()
    .max(64)
    .refine(
      (text) => /^[0-9A-Fa-f:.]+\/[0-9]{1,3}$/.test(text) && isValidPool(text, family),
      family === 4
        ? "ipv4 must be an IPv4 CIDR such as 10.66.0.0/16"
        : "ipv6 must be an IPv6 CIDR such as fd66::/64",
    );

/** Each setting of a VPN server, as every entry point must take it. */
export const vpnServerFields = {
  name: z.string().regex(SLUG, "name must be lower-case letters, digits and dashes, such as ng-lagos-1"),
  region: z.string().regex(SLUG, "region must be lower-case letters, digits and dashes, such as ng-lagos"),
  endpoint: z.string().max(300).refine(isEndpoint, ENDPOINT_RULE),
  publicKey: wireGuardKeySchema,
  ipv4Cidr: poolSchema(4),
  ipv6Cidr: poolSchema(6),
  dns: dnsSchema,
  exitAddresses: exitAddressesSchema,
  /** The configs' `MTU =` and the node's interface MTU. */
  clientMtu: clientMtuSchema,
  /** Extra UDP ports, none twice (the endpoint's own port is refused by client-settings.ts). */
  alternatePorts: alternatePortsSchema,
  /** Configs name the node's own resolver (else `dns`). */
  nodeResolver: z.boolean(),
};

/**
 * The settings of a server that a client's config carries, checked again on every read from the
 * database: a row written there directly (by hand, or by a bug) still cannot reach a config.
 */
export const configServerSchema = z.object({
  name: vpnServerFields.name,
  endpoint: vpnServerFields.endpoint,
  publicKey: vpnServerFields.publicKey,
  dns: vpnServerFields.dns,
  nodeResolver: vpnServerFields.nodeResolver,
  // The node resolver's addresses come from the pools.
  ipv4Cidr: vpnServerFields.ipv4Cidr,
  ipv6Cidr: vpnServerFields.ipv6Cidr,
  clientMtu: vpnServerFields.clientMtu,
  appliedClientMtu: vpnServerFields.clientMtu.nullable(),
  alternatePorts: vpnServerFields.alternatePorts,
});
