// The node's rules as an nftables table of its own (`table inet naijalink`), written exactly as
// `nft list table` prints it, so the listing tells whether it is current (decisions 080, 092).
import { canonicalIpAddress, type NodeServer } from "../node-api.ts";

export const NFT_TABLE = "naijalink";

export interface RuleSettings {
  iface: string;
  egress: string[];
  listenPort: number;
  server: Pick<NodeServer, "ipv4" | "ipv6" | "ipv4Pool" | "ipv6Pool" | "alternatePorts" | "resolver">;
  /**
   * The egress has a global IPv6 address and an IPv6 default route: peers' IPv6 leaves through it
   * (NAT66). Without, it is refused at once with an ICMPv6 unreachable, so apps fall back to IPv4.
   */
  ipv6Egress: boolean;
}

/** The interface's own address (`10.66.0.1/16` → `10.66.0.1`), as nft and iptables print it. */
export const ownAddress = (cidr: string) => {
  const address = cidr.split("/")[0]!;
  return canonicalIpAddress(address) ?? address;
};

const quoted = (name: string) => `"${name}"`;
const nftSet = (names: string[]) =>
  names.length === 1 ? quoted(names[0]!) : `{ ${names.map(quoted).join(", ")} }`;

/**
 * input: peers reach the resolver on the interface's own addresses (when the server has one) and
 * nothing else of the node. forward: TCP MSS clamped to the route MTU both ways (the interface
 * MTU is the clients' MTU); peer→peer drop; peer→egress accept; anything else from or to a peer
 * only as a reply. prerouting: the alternate ports redirected to the listen port. postrouting:
 * each pool masqueraded out of the egress.
 */
export function nftTable({ iface, egress, listenPort, server, ipv6Egress }: RuleSettings): string {
  const wg = quoted(iface);
  const out = nftSet(egress);
  const resolver = server.resolver
    ? [
        `\t\tiifname ${wg} ip daddr ${ownAddress(server.ipv4)} meta l4proto { tcp, udp } th dport 53 accept`,
        `\t\tiifname ${wg} ip6 daddr ${ownAddress(server.ipv6)} meta l4proto { tcp, udp } th dport 53 accept`,
      ]
    : [];
  const prerouting = server.alternatePorts.length
    ? [
        "\tchain prerouting {",
        "\t\ttype nat hook prerouting priority dstnat; policy accept;",
        ...server.alternatePorts.map(
          (port) => `\t\tiifname != ${wg} fib daddr type local udp dport ${port} redirect to :${listenPort}`,
        ),
        "\t}",
        "",
      ]
    : [];
  return [
    `table inet ${NFT_TABLE} {`,
    "\tchain input {",
    "\t\ttype filter hook input priority filter; policy accept;",
    `\t\tiifname ${wg} ct state established,related accept`,
    ...resolver,
    `\t\tiifname ${wg} drop`,
    "\t}",
    "",
    "\tchain forward {",
    "\t\ttype filter hook forward priority filter; policy accept;",
    `\t\tiifname ${wg} tcp flags syn tcp option maxseg size set rt mtu`,
    `\t\toifname ${wg} tcp flags syn tcp option maxseg size set rt mtu`,
    `\t\tiifname ${wg} oifname ${wg} drop`,
    // nft adds the `meta nfproto ipv6` this implies, and leaves it out of the listing.
    ...(ipv6Egress ? [] : [`\t\tiifname ${wg} reject with icmpv6 addr-unreachable`]),
    `\t\tiifname ${wg} oifname ${out} accept`,
    `\t\tiifname ${wg} drop`,
    `\t\tiifname ${out} oifname ${wg} ct state established,related accept`,
    `\t\toifname ${wg} drop`,
    "\t}",
    "",
    ...prerouting,
    "\tchain postrouting {",
    "\t\ttype nat hook postrouting priority srcnat; policy accept;",
    `\t\tip saddr ${server.ipv4Pool} oifname ${out} masquerade`,
    ...(ipv6Egress ? [`\t\tip6 saddr ${server.ipv6Pool} oifname ${out} masquerade`] : []),
    "\t}",
    "}",
    "",
  ].join("\n");
}
