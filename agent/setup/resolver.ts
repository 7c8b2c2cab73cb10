// The node's own resolver for its peers: Debian's unbound, installed with apt when
// missing, with a configuration file of our own that makes it listen on the WireGuard interface's
// addresses only, answer the pools only, log no query, and hand the /check zone to the agent.
import type { NodeServer } from "../node-api.ts";
import { ownAddress } from "./nft-table.ts";
import type { Step } from "./plan.ts";

export const UNBOUND_CONFIG = "/etc/unbound/unbound.conf.d/naijalink.conf";

export interface ResolverFacts {
  /** unbound is installed. */
  installed: boolean;
  /** Our configuration file's text; null when absent. */
  configText: string | null;
  /** systemd runs this host, so it runs unbound; else setup starts it with `unbound-control`. */
  systemd: boolean;
  running: boolean;
  /** Starts at boot (systemd). */
  enabled: boolean;
}

/** What setup did to the resolver, in its record, so uninstall undoes exactly that. */
export interface ResolverRecord {
  installedUnbound: boolean;
  startedUnbound: boolean;
}

export function unboundConfig(
  server: Pick<NodeServer, "ipv4" | "ipv6" | "ipv4Pool" | "ipv6Pool" | "dnsCheckZone">,
  dnsCheckPort: number,
): string {
  const zone = server.dnsCheckZone;
  return [
    "# Written by naijalink-agent setup (decision 092): the VPN's resolver, for its peers only.",
    "server:",
    // ip-freebind: unbound may start at boot before the WireGuard interface has its addresses.
    `    interface: ${ownAddress(server.ipv4)}`,
    `    interface: ${ownAddress(server.ipv6)}`,
    "    ip-freebind: yes",
    "    access-control: 0.0.0.0/0 refuse",
    "    access-control: ::/0 refuse",
    `    access-control: ${server.ipv4Pool} allow`,
    `    access-control: ${server.ipv6Pool} allow`,
    "    log-queries: no",
    "    log-replies: no",
    "    log-local-actions: no",
    "    log-servfail: no",
    "    hide-identity: yes",
    "    hide-version: yes",
    ...(zone && dnsCheckPort
      ? [
          // The check zone's answerer is the agent on 127.0.0.1; its names are in no signed zone.
          "    do-not-query-localhost: no",
          `    domain-insecure: "${zone}"`,
          `    local-zone: "${zone}" transparent`,
          "",
          "stub-zone:",
          `    name: "${zone}"`,
          `    stub-addr: 127.0.0.1@${dnsCheckPort}`,
          "    stub-no-cache: yes",
        ]
      : []),
    "",
  ].join("\n");
}

const restart = (facts: ResolverFacts, why: string): Step[] =>
  facts.systemd
    ? [{ kind: "run", why, argv: ["systemctl", "restart", "unbound"] }]
    : [
        ...(facts.running ? [{ kind: "run" as const, why, argv: ["unbound-control", "stop"] }] : []),
        { kind: "run", why, argv: ["unbound-control", "start"] },
      ];

/** Steps to make the resolver what `config` says (null: the server has none, so ours goes). */
export function resolverSetupSteps(
  facts: ResolverFacts,
  config: string | null,
  previous: ResolverRecord | undefined,
): { steps: Step[]; record: ResolverRecord } {
  const record: ResolverRecord = previous ?? { installedUnbound: false, startedUnbound: false };
  if (config === null) {
    if (facts.configText === null) return { steps: [], record };
    const steps: Step[] = [
      { kind: "remove", why: "the resolver's configuration (this server has none)", path: UNBOUND_CONFIG },
    ];
    if (facts.running) steps.push(...restart(facts, "restart the resolver without it"));
    return { steps, record };
  }
  const steps: Step[] = [];
  if (!facts.installed) {
    steps.push({
      kind: "run",
      why: "install the resolver (Debian's unbound)",
      argv: ["apt-get", "install", "-y", "-q", "unbound"],
      env: { DEBIAN_FRONTEND: "noninteractive" },
    });
    record.installedUnbound = true;
  }
  const changed = facts.configText !== config;
  if (changed) {
    steps.push({
      kind: "write",
      why: "the resolver: on the tunnel addresses only, for the pools only, no query log",
      path: UNBOUND_CONFIG,
      content: config,
      mode: 0o644,
    });
    steps.push({ kind: "run", why: "check the resolver's configuration", argv: ["unbound-checkconf"] });
  }
  if (facts.systemd && !facts.enabled)
    steps.push({ kind: "run", why: "start the resolver at boot", argv: ["systemctl", "enable", "unbound"] });
  if (changed || !facts.running) {
    steps.push(...restart(facts, "start the resolver with this configuration"));
    if (!facts.systemd && !facts.running) record.startedUnbound = true;
  }
  return { steps, record };
}

/** Undoes the resolver: our configuration, and unbound itself when setup installed or started it. */
export function resolverUninstallSteps(facts: ResolverFacts, record: ResolverRecord | undefined): Step[] {
  const steps: Step[] = [];
  if (facts.configText !== null)
    steps.push({ kind: "remove", why: "the resolver's configuration", path: UNBOUND_CONFIG });
  if (record?.installedUnbound && facts.installed) {
    if (facts.running && !facts.systemd)
      steps.push({ kind: "run", why: "stop the resolver setup started", argv: ["unbound-control", "stop"] });
    steps.push({
      kind: "run",
      why: "remove the resolver setup installed",
      argv: ["apt-get", "remove", "-y", "-q", "unbound"],
      env: { DEBIAN_FRONTEND: "noninteractive" },
    });
  } else if (facts.running && record?.startedUnbound && !facts.systemd) {
    steps.push({ kind: "run", why: "stop the resolver setup started", argv: ["unbound-control", "stop"] });
  } else if (facts.running && facts.configText !== null) {
    steps.push(...restart(facts, "restart the resolver without our configuration"));
  }
  return steps;
}
