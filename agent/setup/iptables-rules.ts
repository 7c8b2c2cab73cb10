// The same rules as nft-table.ts for hosts without nftables: chains of our own for IPv4 and IPv6,
// each jumped to from the top of the built-in chain, written as `iptables -S` prints them.
import { ownAddress, type RuleSettings } from "./nft-table.ts";

export const IPTABLES_CHAINS = [
  { table: "filter", chain: "NAIJALINK-INPUT", from: "INPUT" },
  { table: "filter", chain: "NAIJALINK-FORWARD", from: "FORWARD" },
  { table: "nat", chain: "NAIJALINK-PREROUTING", from: "PREROUTING" },
  { table: "nat", chain: "NAIJALINK-POSTROUTING", from: "POSTROUTING" },
] as const;
export type IptablesChain = (typeof IPTABLES_CHAINS)[number]["chain"];
export const IPTABLES_TABLES = ["filter", "nat"] as const;

/** One family's chains, rule by rule as `iptables -S CHAIN` prints them (without the `-N` line). */
export function iptablesRules(
  family: 4 | 6,
  { iface, egress, listenPort, server, ipv6Egress }: RuleSettings,
): Record<IptablesChain, string[]> {
  const input = "-A NAIJALINK-INPUT";
  const forward = "-A NAIJALINK-FORWARD";
  const pool = family === 4 ? server.ipv4Pool : server.ipv6Pool;
  const own = `${ownAddress(family === 4 ? server.ipv4 : server.ipv6)}/${family === 4 ? 32 : 128}`;
  const natted = family === 4 || ipv6Egress;
  const clamp = "-p tcp -m tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu";
  return {
    "NAIJALINK-INPUT": [
      `${input} -i ${iface} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
      ...(server.resolver
        ? ["udp", "tcp"].map(
            (protocol) => `${input} -d ${own} -i ${iface} -p ${protocol} -m ${protocol} --dport 53 -j ACCEPT`,
          )
        : []),
      `${input} -i ${iface} -j DROP`,
    ],
    "NAIJALINK-FORWARD": [
      `${forward} -i ${iface} ${clamp}`,
      `${forward} -o ${iface} ${clamp}`,
      `${forward} -i ${iface} -o ${iface} -j DROP`,
      ...(natted ? [] : [`${forward} -i ${iface} -j REJECT --reject-with icmp6-addr-unreachable`]),
      ...egress.map((out) => `${forward} -i ${iface} -o ${out} -j ACCEPT`),
      `${forward} -i ${iface} -j DROP`,
      ...egress.map(
        (out) => `${forward} -i ${out} -o ${iface} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
      ),
      `${forward} -o ${iface} -j DROP`,
    ],
    "NAIJALINK-PREROUTING": server.alternatePorts.map(
      (port) =>
        `-A NAIJALINK-PREROUTING ! -i ${iface} -p udp -m addrtype --dst-type LOCAL -m udp --dport ${port} -j REDIRECT --to-ports ${listenPort}`,
    ),
    "NAIJALINK-POSTROUTING": natted
      ? egress.map((out) => `-A NAIJALINK-POSTROUTING -s ${pool} -o ${out} -j MASQUERADE`)
      : [],
  };
}
