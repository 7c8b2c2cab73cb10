// What `naijalink-agent setup` and `uninstall` do to a host, decided from what the host holds
// (facts.ts reads it) and what the control plane says of the server: pure, so unit-tested as
// "given these facts, these commands". Steps only for what differs: a second setup finds
// nothing to do.
import { nodeServerSchema, type NodeServer } from "../node-api.ts";
import { firewallSetupSteps, firewallUninstallSteps, type FirewallFacts } from "./firewall.ts";
import { interfaceSetupSteps, interfaceUninstallSteps, mtuBefore } from "./interface.ts";
import {
  resolverSetupSteps,
  resolverUninstallSteps,
  unboundConfig,
  type ResolverFacts,
  type ResolverRecord,
} from "./resolver.ts";
import { UNIT_NAME } from "./systemd-unit.ts";

export type Step =
  | { kind: "run"; why: string; argv: string[]; env?: Record<string, string>; input?: string }
  | { kind: "write"; why: string; path: string; content: string; mode: number }
  | { kind: "remove"; why: string; path: string };

/** What the host holds now, as far as setup and uninstall touch it. */
export interface HostFacts {
  /** `ip link add … type wireguard` can work: the kernel module is loaded or installable. */
  kernelWireGuard: boolean;
  iface: {
    exists: boolean;
    up: boolean;
    /** Its global addresses as `address/prefix`. */
    addresses: string[];
    listenPort: number | null;
    mtu: number | null;
  };
  /** An egress has a global IPv6 address and an IPv6 default route. */
  ipv6Egress: boolean;
  /** Current values of the kernel settings setup manages, by sysctl key; null when absent. */
  sysctl: Record<string, string | null>;
  firewall: FirewallFacts;
  resolver: ResolverFacts;
  /** The unit file's text and state; null when setup leaves systemd alone. */
  unit: { text: string | null; enabled: boolean; active: boolean } | null;
  /** The setup record's text (what an earlier setup added), null when none. */
  recordText: string | null;
}

export interface SetupSettings {
  iface: string;
  egress: string[];
  listenPort: number;
  /** The server as the control plane describes it: its addresses and pools. */
  server: NodeServer;
  recordFile: string;
  /** The node's secrets (its token file, the agent's private key): uninstall removes them. */
  secretFiles?: string[];
  /** Where the agent answers the /check zone, for the resolver's stub zone (0: it does not). */
  dnsCheckPort: number;
  /** The unit to install, or null with `--no-systemd`. */
  unit: { path: string; text: string } | null;
}

/** What setup added, so uninstall removes exactly that; also the server last heard of. */
export interface SetupRecord {
  iface: string;
  createdInterface: boolean;
  /** Addresses setup put on an interface it did not create. */
  addedAddresses: string[];
  /** Kernel settings setup changed, with the value each had before. */
  sysctlBefore: Record<string, string>;
  unitFile: string | null;
  /** The node token file and the agent's private key, removed by uninstall. */
  secretFiles?: string[];
  /** The MTU of an interface setup did not create, before setup set it. */
  mtuBefore?: number;
  resolver?: ResolverRecord;
  /**
   * What the running agent needs to rebuild the rules and the resolver when the server's settings
   * change (decision 129): the egress, the firewall tool, the /check answerer's port. Absent in
   * records of an older setup.
   */
  egress?: string[];
  firewall?: "nft" | "iptables";
  dnsCheckPort?: number;
  /** Used at boot when the control plane does not answer; the running agent keeps it current. */
  server: NodeServer;
}

const FORWARDING = { "net.ipv4.ip_forward": "1", "net.ipv6.conf.all.forwarding": "1" } as const;

/** `sysctl` takes `/` as separator too, which an interface name with a dot (eth0.100) needs. */
export const acceptRaKey = (iface: string) =>
  iface.includes(".") ? `net/ipv6/conf/${iface}/accept_ra` : `net.ipv6.conf.${iface}.accept_ra`;

/** The sysctl values setup wants, given what is there now. */
export function wantedSysctl(egress: string[], current: HostFacts["sysctl"]): Record<string, string> {
  const wanted: Record<string, string> = { ...FORWARDING };
  // A forwarding host ignores router advertisements unless accept_ra is 2: without this, an
  // egress configured by SLAAC would lose its IPv6 default route.
  for (const iface of egress) if (current[acceptRaKey(iface)] === "1") wanted[acceptRaKey(iface)] = "2";
  return wanted;
}

export function parseRecord(text: string | null): SetupRecord | null {
  if (!text) return null;
  try {
    const record = JSON.parse(text) as SetupRecord;
    // A record from an older agent lacks the server's newer fields: the contract's defaults fill them.
    const server = nodeServerSchema.safeParse(record.server);
    return typeof record.iface === "string" && server.success ? { ...record, server: server.data } : null;
  } catch {
    return null;
  }
}

export const recordText = (record: SetupRecord) => `${JSON.stringify(record, null, 2)}\n`;

export function buildSetupPlan(
  facts: HostFacts,
  settings: SetupSettings,
): { steps: Step[]; record: SetupRecord } {
  const { iface } = settings;
  const previous = parseRecord(facts.recordText);
  const { wantedAddresses, addedNow, steps } = interfaceSetupSteps(facts, settings);

  const sysctlBefore: Record<string, string> = { ...previous?.sysctlBefore };
  for (const [key, value] of Object.entries(wantedSysctl(settings.egress, facts.sysctl))) {
    const current = facts.sysctl[key] ?? null;
    if (current === value) continue;
    if (current !== null && !(key in sysctlBefore)) sysctlBefore[key] = current;
    steps.push({
      kind: "run",
      why: key.endsWith("accept_ra")
        ? "keep taking router advertisements on the egress while forwarding"
        : "let the kernel forward the peers' traffic",
      argv: ["sysctl", "-qw", `${key}=${value}`],
    });
  }

  steps.push(...firewallSetupSteps(facts.firewall, { ...settings, ipv6Egress: facts.ipv6Egress }));
  const resolver = resolverSetupSteps(
    facts.resolver,
    settings.server.resolver ? unboundConfig(settings.server, settings.dnsCheckPort) : null,
    previous?.resolver,
  );
  steps.push(...resolver.steps);

  if (settings.unit && facts.unit) {
    const changed = facts.unit.text !== settings.unit.text;
    if (changed) {
      steps.push({
        kind: "write",
        why: "the agent's service unit",
        path: settings.unit.path,
        content: settings.unit.text,
        mode: 0o644,
      });
      steps.push({ kind: "run", why: "make systemd read the unit", argv: ["systemctl", "daemon-reload"] });
    }
    if (!facts.unit.enabled) {
      steps.push({ kind: "run", why: "start the agent at boot", argv: ["systemctl", "enable", UNIT_NAME] });
    }
    if (!facts.unit.active) {
      steps.push({ kind: "run", why: "start the agent", argv: ["systemctl", "start", UNIT_NAME] });
    } else if (changed) {
      steps.push({
        kind: "run",
        why: "restart the agent with the new unit",
        argv: ["systemctl", "restart", UNIT_NAME],
      });
    }
  }

  const sameInterface = previous?.iface === iface;
  const createdInterface = (sameInterface && previous.createdInterface) || !facts.iface.exists;
  const addedAddresses = createdInterface
    ? []
    : [...new Set([...(sameInterface ? previous.addedAddresses : []), ...addedNow])].filter((address) =>
        wantedAddresses.includes(address),
      );
  const record: SetupRecord = {
    iface,
    createdInterface,
    addedAddresses,
    sysctlBefore,
    unitFile: settings.unit?.path ?? previous?.unitFile ?? null,
    secretFiles: [...new Set([...(previous?.secretFiles ?? []), ...(settings.secretFiles ?? [])])],
    mtuBefore: mtuBefore(facts, settings.server.mtu, sameInterface ? previous : null, createdInterface),
    resolver: resolver.record,
    egress: settings.egress,
    firewall: facts.firewall.tool,
    dnsCheckPort: settings.dnsCheckPort,
    server: settings.server,
  };
  const text = recordText(record);
  // The record is written first: a setup that fails half-way can still be undone.
  if (text !== facts.recordText) {
    steps.unshift({
      kind: "write",
      why: "record what setup adds (for uninstall)",
      path: settings.recordFile,
      content: text,
      mode: 0o600,
    });
  }
  return { steps, record };
}

/** Undoes a setup: the unit, the firewall rules, the interface (or its addresses), the kernel settings. */
export function buildUninstallPlan(
  facts: HostFacts,
  options: {
    iface: string;
    recordFile: string;
    unitPath: string | null;
    /** False on a host systemd does not run: a unit file left there is removed without `systemctl`. */
    systemd?: boolean;
  },
): Step[] {
  const record = parseRecord(facts.recordText);
  const steps: Step[] = [];
  const unitPath = record?.unitFile ?? options.unitPath;
  const systemd = options.systemd ?? true;
  if (systemd && facts.unit && (facts.unit.enabled || facts.unit.active)) {
    steps.push({
      kind: "run",
      why: "stop the agent and its start at boot",
      argv: ["systemctl", "disable", "--now", UNIT_NAME],
    });
  }
  if (unitPath && facts.unit?.text != null) {
    steps.push({ kind: "remove", why: "the agent's service unit", path: unitPath });
    if (systemd)
      steps.push({ kind: "run", why: "make systemd forget the unit", argv: ["systemctl", "daemon-reload"] });
  }
  steps.push(...firewallUninstallSteps(facts.firewall));
  steps.push(...resolverUninstallSteps(facts.resolver, record?.resolver));
  if (!record) return steps;

  steps.push(...interfaceUninstallSteps(facts, record));
  for (const [key, value] of Object.entries(record.sysctlBefore)) {
    if (facts.sysctl[key] !== undefined && facts.sysctl[key] !== null && facts.sysctl[key] !== value) {
      steps.push({
        kind: "run",
        why: "put back the kernel setting as it was",
        argv: ["sysctl", "-qw", `${key}=${value}`],
      });
    }
  }
  for (const file of record.secretFiles ?? [])
    steps.push({
      kind: "remove",
      why: "a secret of this node (its token, the agent's private key)",
      path: file,
    });
  // Last: until it goes, a re-run after a failure plans what the host still holds (decision 097).
  steps.push({ kind: "remove", why: "the setup record", path: options.recordFile });
  return steps;
}
