// What the agent's tests share: a server as the control plane describes it, a fresh host, the host after a plan.
import { nftTable } from "./nft-table.ts";
import type { HostFacts, SetupSettings, Step } from "./plan.ts";
import { UNBOUND_CONFIG } from "./resolver.ts";

export const server = {
  name: "lagos-1",
  listenPort: 51820,
  ipv4: "10.66.0.1/16",
  ipv6: "fd66::1/64",
  ipv4Pool: "10.66.0.0/16",
  ipv6Pool: "fd66::/64",
  mtu: 1280,
  alternatePorts: [443],
  resolver: true,
  dnsCheckZone: "dns-check.internal",
};
export const unit = {
  path: "/etc/systemd/system/naijalink-agent.service",
  text: "[Unit]\nDescription=agent\n",
};
export const settings = (overrides: Partial<SetupSettings> = {}): SetupSettings => ({
  iface: "wg0",
  egress: ["eth0"],
  listenPort: 51820,
  server,
  recordFile: "/var/lib/naijalink-agent/setup.json",
  dnsCheckPort: 9553,
  unit,
  ...overrides,
});

/** A fresh Debian host: no interface, no forwarding, no IPv6 egress, nftables, systemd, no unbound. */
export const freshHost = (overrides: Partial<HostFacts> = {}): HostFacts => ({
  kernelWireGuard: true,
  iface: { exists: false, up: false, addresses: [], listenPort: null, mtu: null },
  ipv6Egress: false,
  sysctl: {
    "net.ipv4.ip_forward": "0",
    "net.ipv6.conf.all.forwarding": "0",
    "net.ipv6.conf.eth0.accept_ra": "0",
  },
  firewall: { tool: "nft", table: null },
  resolver: { installed: false, configText: null, systemd: true, running: false, enabled: false },
  unit: { text: null, enabled: false, active: false },
  recordText: null,
  ...overrides,
});

/** The host after `plan` was applied to `facts`. */
export function applied(facts: HostFacts, plan: { steps: Step[] }, given = settings()): HostFacts {
  const sysctl = { ...facts.sysctl };
  for (const step of plan.steps) {
    if (step.kind === "run" && step.argv[0] === "sysctl") {
      const [key, value] = step.argv[2]!.split("=");
      sysctl[key!] = value!;
    }
  }
  const written = (path: string) =>
    (
      plan.steps.find((step) => step.kind === "write" && step.path === path) as
        { content: string } | undefined
    )?.content;
  const removed = plan.steps.some((step) => step.kind === "remove" && step.path === UNBOUND_CONFIG);
  return {
    ...facts,
    iface: {
      exists: true,
      up: true,
      addresses: [given.server.ipv4, given.server.ipv6],
      listenPort: given.listenPort,
      mtu: given.server.mtu,
    },
    sysctl,
    firewall: { tool: "nft", table: nftTable({ ...given, ipv6Egress: facts.ipv6Egress }) },
    resolver: {
      ...facts.resolver,
      installed: facts.resolver.installed || given.server.resolver,
      configText: removed ? null : (written(UNBOUND_CONFIG) ?? facts.resolver.configText),
      running: facts.resolver.running || given.server.resolver,
      enabled: facts.resolver.systemd && (facts.resolver.enabled || given.server.resolver),
    },
    unit: given.unit ? { text: given.unit.text, enabled: true, active: true } : facts.unit,
    recordText: written(given.recordFile) ?? facts.recordText,
  };
}

export const commands = (steps: Step[]) =>
  steps.map((step) => (step.kind === "run" ? step.argv.join(" ") : `${step.kind} ${step.path}`));
