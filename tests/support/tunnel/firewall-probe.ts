// Run inside a network namespace by firewall-rules.test.ts: applies setup's firewall steps with the
// real tools, reads the rules back as setup does, then uninstalls; prints what each stage found.
import { applyStep } from "#agent/setup/commands.ts";
import { readFirewall } from "#agent/setup/facts.ts";
import { firewallSetupSteps, firewallUninstallSteps } from "#agent/setup/firewall.ts";
import type { RuleSettings } from "#agent/setup/nft-table.ts";

const [tool, egress] = process.argv.slice(2) as ["nft" | "iptables", "ipv6-egress" | "no-ipv6-egress"];
const settings: RuleSettings = {
  iface: "wg0",
  egress: ["eth0", "eth1"],
  listenPort: 51820,
  server: {
    ipv4: "10.66.0.1/16",
    ipv6: "fd66::1/64",
    ipv4Pool: "10.66.0.0/16",
    ipv6Pool: "fd66::/64",
    alternatePorts: [443, 53],
    resolver: true,
  },
  ipv6Egress: egress === "ipv6-egress",
};

const first = firewallSetupSteps(await readFirewall(tool), settings);
for (const step of first) await applyStep(step);
const again = firewallSetupSteps(await readFirewall(tool), settings);
const uninstall = firewallUninstallSteps(await readFirewall(tool));
for (const step of uninstall) await applyStep(step);
const after = await readFirewall(tool);
process.stdout.write(
  JSON.stringify({
    first: first.length,
    again: again.map((step) => (step.kind === "run" ? step.argv.join(" ") : step.kind)),
    uninstall: uninstall.length,
    left:
      after.tool === "nft"
        ? [after.table].filter(Boolean)
        : [after.v4, after.v6].flatMap((family) =>
            Object.entries(family.rules)
              .filter(([, rules]) => rules !== null)
              .map(([chain]) => chain)
              .concat(
                Object.entries(family.jumps)
                  .filter(([, jump]) => jump)
                  .map(([chain]) => `jump to ${chain}`),
              ),
          ),
  }),
);
