// The node's firewall, in a table (nftables) or chains (iptables) of its own so setup never edits
// the operator's rules and uninstall removes exactly these. The rules themselves: nft-table.ts
// and iptables-rules.ts.
import { IPTABLES_CHAINS, IPTABLES_TABLES, iptablesRules, type IptablesChain } from "./iptables-rules.ts";
import { NFT_TABLE, nftTable, type RuleSettings } from "./nft-table.ts";
import type { Step } from "./plan.ts";

/** One family's chains as `iptables -S CHAIN` prints them (without the `-N` line); null when absent. */
export interface IptablesFamilyFacts {
  rules: Record<IptablesChain, string[] | null>;
  /** Whether the built-in chain jumps to ours. */
  jumps: Record<IptablesChain, boolean>;
}

export type FirewallFacts =
  | { tool: "nft"; /** `nft list table inet naijalink`, null when absent. */ table: string | null }
  | { tool: "iptables"; v4: IptablesFamilyFacts; v6: IptablesFamilyFacts };

const sameRules = (a: string[] | null, b: string[]) => a !== null && a.join("\n") === b.join("\n");

export function firewallSetupSteps(facts: FirewallFacts, settings: RuleSettings): Step[] {
  if (facts.tool === "nft") {
    const table = nftTable(settings);
    if (facts.table === table) return [];
    return [
      {
        kind: "run",
        why: "firewall, MSS clamping, port redirects and NAT (replaced in one transaction)",
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
    for (const table of IPTABLES_TABLES) {
      const chains = IPTABLES_CHAINS.filter((chain) => chain.table === table);
      if (chains.every(({ chain }) => sameRules(current.rules[chain], wanted[chain]) && current.jumps[chain]))
        continue;
      // Declaring a chain in `iptables-restore --noflush` creates it or empties it: one commit per table.
      lines.push(`*${table}`);
      for (const { chain, from } of chains) {
        lines.push(`:${chain} - [0:0]`, ...wanted[chain]);
        if (!current.jumps[chain]) lines.push(`-I ${from} 1 -j ${chain}`);
      }
      lines.push("COMMIT");
    }
    if (lines.length === 0) continue;
    const tool = family === 4 ? "iptables-restore" : "ip6tables-restore";
    steps.push({
      kind: "run",
      why: `IPv${family} firewall, MSS clamping, port redirects and NAT`,
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
            why: "remove the firewall, port redirect and NAT rules",
            argv: ["nft", "delete", "table", "inet", NFT_TABLE],
          },
        ];
  }
  const steps: Step[] = [];
  for (const family of [4, 6] as const) {
    const current = family === 4 ? facts.v4 : facts.v6;
    const tool = family === 4 ? "iptables" : "ip6tables";
    for (const { table, chain, from } of IPTABLES_CHAINS) {
      const why = `remove the IPv${family} ${chain} rules`;
      if (current.jumps[chain])
        steps.push({ kind: "run", why, argv: [tool, "-t", table, "-D", from, "-j", chain] });
      if (current.rules[chain] !== null) {
        steps.push({ kind: "run", why, argv: [tool, "-t", table, "-F", chain] });
        steps.push({ kind: "run", why, argv: [tool, "-t", table, "-X", chain] });
      }
    }
  }
  return steps;
}
