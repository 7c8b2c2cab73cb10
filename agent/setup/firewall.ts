// The node's NAT and forwarding rules, in a table (nftables) or chains (iptables) of their own so
// setup never edits the operator's rules and uninstall removes exactly these. Peers may go out
// through the egress interfaces only: not to each other, not to any other interface.
import type { Step } from "./plan.ts";

export const NFT_TABLE = "naijalink";
export const IPTABLES_CHAINS = { filter: "NAIJALINK-FORWARD", nat: "NAIJALINK-POSTROUTING" } as const;
const JUMPS = { filter: "FORWARD", nat: "POSTROUTING" } as const;

type IptablesTable = keyof typeof IPTABLES_CHAINS;

/** One family's chains as `iptables -S CHAIN` prints them (without the `-N` line); null when absent. */
export interface IptablesFamilyFacts {
  rules: Record<IptablesTable, string[] | null>;
  jumps: Record<IptablesTable, boolean>;
}

export type FirewallFacts =
  | { tool: "nft"; /** `nft list table inet naijalink`, null when absent. */ table: string | null }
  | { tool: "iptables"; v4: IptablesFamilyFacts; v6: IptablesFamilyFacts };

interface RuleSettings {
  iface: string;
  egress: string[];
  server: { ipv4Pool: string; ipv6Pool: string };
}

const quoted = (name: string) => `"${name}"`;
const nftSet = (names: string[]) =>
  names.length === 1 ? quoted(names[0]!) : `{ ${names.map(quoted).join(", ")} }`;

/** The table, written as `nft list table` prints it, so the listing tells whether it is current. */
export function nftTable({ iface, egress, server }: RuleSettings): string {
  const wg = quoted(iface);
  const out = nftSet(egress);
  return [
    `table inet ${NFT_TABLE} {`,
    "\tchain forward {",
    "\t\ttype filter hook forward priority filter; policy accept;",
    `\t\tiifname ${wg} oifname ${wg} drop`,
    `\t\tiifname ${wg} oifname ${out} accept`,
    `\t\tiifname ${wg} drop`,
    `\t\tiifname ${out} oifname ${wg} ct state established,related accept`,
    `\t\toifname ${wg} drop`,
    "\t}",
    "",
    "\tchain postrouting {",
    "\t\ttype nat hook postrouting priority srcnat; policy accept;",
    `\t\tip saddr ${server.ipv4Pool} oifname ${out} masquerade`,
    `\t\tip6 saddr ${server.ipv6Pool} oifname ${out} masquerade`,
    "\t}",
    "}",
    "",
  ].join("\n");
}

/** One family's rules, as `iptables -S` prints them. */
export function iptablesRules(
  family: 4 | 6,
  { iface, egress, server }: RuleSettings,
): Record<IptablesTable, string[]> {
  const forward = IPTABLES_CHAINS.filter;
  const pool = family === 4 ? server.ipv4Pool : server.ipv6Pool;
  return {
    filter: [
      `-A ${forward} -i ${iface} -o ${iface} -j DROP`,
      ...egress.map((out) => `-A ${forward} -i ${iface} -o ${out} -j ACCEPT`),
      `-A ${forward} -i ${iface} -j DROP`,
      ...egress.map(
        (out) => `-A ${forward} -i ${out} -o ${iface} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
      ),
      `-A ${forward} -o ${iface} -j DROP`,
    ],
    nat: egress.map((out) => `-A ${IPTABLES_CHAINS.nat} -s ${pool} -o ${out} -j MASQUERADE`),
  };
}

const sameRules = (a: string[] | null, b: string[]) => a !== null && a.join("\n") === b.join("\n");

export function firewallSetupSteps(facts: FirewallFacts, settings: RuleSettings): Step[] {
  if (facts.tool === "nft") {
    const table = nftTable(settings);
    if (facts.table === table) return [];
    return [
      {
        kind: "run",
        why: "NAT and forwarding rules (replaced in one transaction)",
        argv: ["nft", "-f", "-"],
        // Creating the table first makes the delete succeed on a host without it.
        input: `table inet ${NFT_TABLE}\ndelete table inet ${NFT_TABLE}\n${table}`,
      },
    ];
  }
  const steps: Step[] = [];
  for (const family of [4, 6] as const) {
    const current = family === 4 ? facts.v4 : facts.v6;
    const wanted = iptablesRules(family, settings);
    const lines: string[] = [];
    for (const table of ["filter", "nat"] as const) {
      if (sameRules(current.rules[table], wanted[table]) && current.jumps[table]) continue;
      // Declaring a chain in `iptables-restore --noflush` creates it or empties it: one commit per table.
      lines.push(`*${table}`, `:${IPTABLES_CHAINS[table]} - [0:0]`, ...wanted[table]);
      if (!current.jumps[table]) lines.push(`-I ${JUMPS[table]} 1 -j ${IPTABLES_CHAINS[table]}`);
      lines.push("COMMIT");
    }
    if (lines.length === 0) continue;
    const tool = family === 4 ? "iptables-restore" : "ip6tables-restore";
    steps.push({
      kind: "run",
      why: `IPv${family} NAT and forwarding rules`,
      argv: [tool, "--noflush"],
      input: `${lines.join("\n")}\n`,
    });
  }
  return steps;
}

export function firewallUninstallSteps(facts: FirewallFacts): Step[] {
  if (facts.tool === "nft") {
    return facts.table === null
      ? []
      : [
          {
            kind: "run",
            why: "remove the NAT and forwarding rules",
            argv: ["nft", "delete", "table", "inet", NFT_TABLE],
          },
        ];
  }
  const steps: Step[] = [];
  for (const family of [4, 6] as const) {
    const current = family === 4 ? facts.v4 : facts.v6;
    const tool = family === 4 ? "iptables" : "ip6tables";
    for (const table of ["filter", "nat"] as const) {
      const chain = IPTABLES_CHAINS[table];
      const why = `remove the IPv${family} ${table} rules`;
      if (current.jumps[table])
        steps.push({ kind: "run", why, argv: [tool, "-t", table, "-D", JUMPS[table], "-j", chain] });
      if (current.rules[table] !== null) {
        steps.push({ kind: "run", why, argv: [tool, "-t", table, "-F", chain] });
        steps.push({ kind: "run", why, argv: [tool, "-t", table, "-X", chain] });
      }
    }
  }
  return steps;
}
