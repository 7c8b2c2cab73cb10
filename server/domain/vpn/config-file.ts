import { wireGuardKeySchema } from "#agent/node-api.ts";
import type { Config } from "#server/config.ts";
import type { Device, VpnServer } from "#server/db/schema/index.ts";
import { DomainError } from "#server/domain/errors.ts";
import type { Sealer } from "#server/secrets.ts";
import { addressesAt, SERVER_ADDRESS_INDEX } from "./addresses.ts";
import { configServerSchema } from "./server-fields.ts";

export type ClientConfigDevice = Pick<Device, "privateKeySealed" | "presharedKeySealed" | "ipv4" | "ipv6">;

/** What of a server its clients' configs say. */
export type ClientConfigServer = Pick<
  VpnServer,
  | "name"
  | "publicKey"
  | "endpoint"
  | "dns"
  | "nodeResolver"
  | "ipv4Cidr"
  | "ipv6Cidr"
  | "clientMtu"
  | "appliedClientMtu"
  | "alternatePorts"
  | "appliedAlternatePorts"
  | "appliedNodeResolver"
>;

/**
 * The `MTU =` configs carry: the node's interface MTU as its agent last reported it, so a new MTU
 * reaches configs only once the node has applied it (decision 129); `clientMtu` until a node
 * reports one.
 */
export function configMtu(server: Pick<VpnServer, "clientMtu" | "appliedClientMtu">): number {
  return server.appliedClientMtu ?? server.clientMtu;
}

/**
 * The alternate ports configs offer: those of the settings version the node last reported applied
 * (decision 133), so a port is offered once the node redirects it and until it no longer does;
 * the desired ones while no node has reported.
 */
export function configAlternatePorts(server: Pick<VpnServer, "alternatePorts" | "appliedAlternatePorts">) {
  return server.appliedAlternatePorts ?? server.alternatePorts;
}

/** Whether configs name the node's resolver: once the node reports it runs (decision 133), until it stops. */
export function configNodeResolver(server: Pick<VpnServer, "nodeResolver" | "appliedNodeResolver">) {
  return server.appliedNodeResolver ?? server.nodeResolver;
}

/**
 * A config that cannot be issued because a stored value breaks its grammar: the server's settings
 * fail `configServerSchema`, or a value holds a control character. The message names the server
 * and the setting (never its value), for the operator.
 */
export class ConfigRefused extends DomainError {
  constructor(serverName: string, setting: string) {
    super(
      "unavailable",
      "Configuration unavailable",
      `The config cannot be issued: the ${setting} setting of VPN server ${JSON.stringify(serverName.slice(0, 63))} is not valid. Please contact support.`,
    );
  }
}

/**
 * C0 and C1 controls, DEL, Unicode format characters (bidi overrides too), line and paragraph
 * separators, and unpaired surrogates.
 */
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** The node's own tunnel addresses, where its resolver listens. */
export function nodeTunnelAddresses(server: Pick<VpnServer, "ipv4Cidr" | "ipv6Cidr">) {
  return addressesAt(server.ipv4Cidr, server.ipv6Cidr, SERVER_ADDRESS_INDEX);
}

/** The `DNS =` of a server's configs: its node's resolver, or the operator's choice (`dns`) when opted out. */
export function clientDns(server: Pick<VpnServer, "dns" | "nodeResolver" | "ipv4Cidr" | "ipv6Cidr">): string {
  if (!server.nodeResolver) return server.dns;
  const own = nodeTunnelAddresses(server);
  return `${own.ipv4}, ${own.ipv6}`;
}

/** The endpoint's port ("[2001:db8::1]:51820" → 51820). */
export function endpointPort(endpoint: string): number {
  return Number(endpoint.slice(endpoint.lastIndexOf(":") + 1));
}

/** The same host on another port ("[2001:db8::1]:51820", 443 → "[2001:db8::1]:443"). */
export function endpointOnPort(endpoint: string, port: number): string {
  return `${endpoint.slice(0, endpoint.lastIndexOf(":"))}:${port}`;
}

/**
 * The WireGuard client config of one device; the same text feeds the .conf and the QR code.
 * `port`: the variant for one of the server's alternate ports (the same peer, another way in).
 */
export function renderClientConfig(
  device: ClientConfigDevice,
  server: ClientConfigServer,
  sealer: Sealer,
  options: { port?: number } = {},
): string {
  if (!server.publicKey) throw new Error(`VPN server ${server.name} has no registered public key yet`);
  const checked = configServerSchema.safeParse({
    ...server,
    alternatePorts: configAlternatePorts(server),
    nodeResolver: configNodeResolver(server),
  });
  if (!checked.success) throw new ConfigRefused(server.name, String(checked.error.issues[0]!.path[0]));
  const settings = checked.data;
  if (options.port !== undefined && !settings.alternatePorts.includes(options.port))
    throw new ConfigRefused(server.name, "alternatePorts");
  // Defence in depth: whatever the schemas let through, no value may start a line of its own.
  const line = (key: string, value: string) => {
    if (CONTROL.test(value)) throw new ConfigRefused(server.name, key);
    return `${key} = ${value}`;
  };
  const keyLine = (key: string, value: string) => {
    if (!wireGuardKeySchema.safeParse(value).success) throw new ConfigRefused(server.name, key);
    return line(key, value);
  };
  const endpoint =
    options.port === undefined ? settings.endpoint : endpointOnPort(settings.endpoint, options.port);
  return [
    "[Interface]",
    keyLine("PrivateKey", sealer.unseal(device.privateKeySealed)),
    line("Address", `${device.ipv4}/32, ${device.ipv6}/128`),
    line("DNS", clientDns(settings)),
    line("MTU", String(configMtu(settings))),
    "",
    "[Peer]",
    line("PublicKey", settings.publicKey),
    keyLine("PresharedKey", sealer.unseal(device.presharedKeySealed)),
    line("Endpoint", endpoint),
    "AllowedIPs = 0.0.0.0/0, ::/0",
    "PersistentKeepalive = 25",
    "",
  ].join("\n");
}

/** "Can't connect on this network? Use port 443": the first alternate port and its variant's link. */
export interface AlternateOffer {
  port: number;
  downloadUrl: string;
}

/** The offer of a device's alternate-port variant, or undefined when its server has no alternate port. */
export function alternateOffer(
  downloadUrl: string,
  server: Pick<VpnServer, "alternatePorts" | "appliedAlternatePorts">,
): AlternateOffer | undefined {
  const port = configAlternatePorts(server)[0];
  return port === undefined ? undefined : { port, downloadUrl: `${downloadUrl}?port=${port}` };
}

/** The capability URL of a device's config (`GET /api/configs/{token}`); only the token's hash is looked up. */
export function downloadUrl(
  services: { config: Pick<Config, "PUBLIC_URL">; sealer: Sealer },
  device: Pick<Device, "downloadTokenSealed">,
): string {
  const base = services.config.PUBLIC_URL.replace(/\/+$/, "");
  return `${base}/api/configs/${services.sealer.unseal(device.downloadTokenSealed)}`;
}
