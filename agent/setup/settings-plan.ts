// What the running agent does when the server's node settings change (decision 129): the
// interface MTU, the firewall (port redirects, MSS clamp, resolver access) and the resolver, each
// built by the same code setup uses, so a setup run afterwards finds nothing to do. Pure, like
// plan.ts: "given these facts, these commands".
import type { NodeServer } from "../node-api.ts";
import { firewallSetupSteps } from "./firewall.ts";
import { mtuSteps } from "./interface.ts";
import { parseRecord, recordText, type HostFacts, type SetupRecord, type Step } from "./plan.ts";
import { resolverSetupSteps, unboundConfig } from "./resolver.ts";

export interface SettingsPlan {
  steps: Step[];
  /**
   * Why part of the settings cannot be applied (no setup record with the egress, so no rules or
   * resolver to rebuild); null when the plan covers them all.
   */
  unmanaged: string | null;
}

/** The record setup needs to have written for the agent to rebuild rules and resolver. */
type ManagedRecord = SetupRecord & Required<Pick<SetupRecord, "egress" | "firewall" | "dnsCheckPort">>;

const managed = (record: SetupRecord | null): record is ManagedRecord =>
  record !== null &&
  Array.isArray(record.egress) &&
  record.egress.length > 0 &&
  record.firewall !== undefined;

export function buildSettingsPlan(
  facts: HostFacts,
  options: { iface: string; recordFile: string; server: NodeServer },
): SettingsPlan {
  const { iface, server } = options;
  const steps: Step[] = [];
  if (!facts.iface.exists) return { steps, unmanaged: `the interface ${iface} does not exist: run setup` };
  steps.push(...mtuSteps(facts, iface, server.mtu));
  const record = parseRecord(facts.recordText);
  if (!managed(record) || record.iface !== iface) {
    const wanted = server.alternatePorts.length > 0 || server.resolver;
    return {
      steps,
      unmanaged: wanted
        ? `no setup record for ${iface} with its egress at ${options.recordFile}: the port redirects and the resolver are not applied; run setup once (the agent applies every change after that)`
        : null,
    };
  }
  steps.push(
    ...firewallSetupSteps(facts.firewall, {
      iface,
      egress: record.egress,
      listenPort: server.listenPort,
      server,
      ipv6Egress: facts.ipv6Egress,
    }),
  );
  const resolver = resolverSetupSteps(
    facts.resolver,
    server.resolver ? unboundConfig(server, record.dnsCheckPort) : null,
    record.resolver,
  );
  steps.push(...resolver.steps);
  const text = recordText({ ...record, resolver: resolver.record, server });
  if (text !== facts.recordText)
    steps.unshift({
      kind: "write",
      why: "record the server's settings (for uninstall, and for a start without the control plane)",
      path: options.recordFile,
      content: text,
      mode: 0o600,
    });
  return { steps, unmanaged: null };
}
