// What `npm run vpn` prints for each answer (scripts/vpn.ts).
import { nodeSetupAdvice } from "#app/lib/node-setup-advice.ts";
import { describePorts } from "#server/domain/vpn/client-settings.ts";
import { describeMtu, describeNodeSettings, minuteUtc } from "#server/domain/vpn/node-settings-state.ts";
import type { ServerCommand, ServerCommandResult } from "#server/domain/vpn/server-admin.ts";
import type { ServerSummary } from "#server/domain/vpn/server-edits.ts";

const STATE_WORDS: Record<ServerSummary["state"], string> = {
  "awaiting-node": "awaiting its node",
  online: "online",
  silent: "silent",
  draining: "draining",
  disabled: "disabled",
  full: "full",
  placeholder: "development placeholder",
  retired: "retired (development)",
};

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

export function describeServer(server: ServerSummary): string {
  return [
    server.name,
    server.id,
    server.endpoint,
    server.ipv4Cidr,
    server.ipv6Cidr,
    STATE_WORDS[server.state],
    server.takesDevices ? "takes new devices" : "takes no new devices",
    server.exitAddresses.length ? `exits ${server.exitAddresses.join(",")}` : "no exit addresses",
    describeMtu(server.clientMtu, server.nodeSettings),
    server.alternatePorts.length ? `also UDP ${server.alternatePorts.join(",")}` : "no alternate port",
    server.nodeResolver ? "DNS node" : `DNS ${server.dns}`,
    describeNodeSettings(server.nodeSettings),
    server.publicKey ? "key registered" : "waiting for its agent",
    plural(server.liveDevices, "live device"),
    `last seen ${server.lastSeenAt ? new Date(server.lastSeenAt).toISOString() : "never"}`,
    ...(server.streaming.length ? [describeStreaming(server.streaming)] : []),
  ].join("  ");
}

/** Each listed service's last check through the server, as /admin/servers shows them (decision 133). */
export function describeStreaming(results: ServerSummary["streaming"]): string {
  const each = results.map((result) =>
    result.ok === null
      ? `${result.name}: not checked yet`
      : result.ok
        ? `✓ ${result.name} (${minuteUtc(result.checkedAt!)})`
        : `✗ ${result.name}: ${result.reason} (${minuteUtc(result.checkedAt!)}${result.required ? "" : ", not required"})`,
  );
  return `streaming ${each.join("; ")}`;
}

/** What happens after set-mtu / set-ports / set-dns (decision 129): the running agent applies it. */
export const NODE_APPLIES =
  "Its running agent applies it within seconds; `npm run vpn -- list-servers` shows when it has.";
const MTU_APPLIED =
  "Configs carry the new MTU once the node has applied it; owners of configs handed out before are then e-mailed to download theirs again.";
const DNS_APPLIED =
  "Configs carry it once the node has applied it (at once when only the other resolvers changed); owners of configs handed out before are then e-mailed to download theirs again.";
const PORTS_APPLIED =
  "Configs offer the new ports once the node has applied them; a port taken away then e-mails owners of configs handed out before.";

const STATUS_LINES: Partial<Record<ServerCommand["command"], (server: ServerSummary) => string>> = {
  "drain-server": ({ name }) =>
    `VPN server ${name} draining: it takes no new devices; the devices on it keep working.`,
  "disable-server": ({ name }) =>
    `VPN server ${name} disabled: it takes no new devices and its node drops their peers, so the devices on it stop connecting until it is enabled again.`,
  "enable-server": ({ name }) => `VPN server ${name} active: it takes new devices and carries its peers.`,
  "set-endpoint": ({ name, endpoint }) =>
    `VPN server ${name} now at ${endpoint}: configs downloaded from now on carry it; configs handed out before keep the old endpoint.`,
  "set-mtu": ({ name, clientMtu }) =>
    `VPN server ${name}: MTU ${clientMtu} for its node's interface and its clients. ${NODE_APPLIES} ${MTU_APPLIED}`,
  "set-ports": ({ name, alternatePorts }) =>
    `VPN server ${name} is to accept WireGuard on ${describePorts(alternatePorts)} besides its endpoint's port. ${NODE_APPLIES} ${PORTS_APPLIED}`,
  "set-dns": ({ name, nodeResolver, dns }) =>
    nodeResolver
      ? `VPN server ${name}'s configs name its node's own resolver for DNS. ${NODE_APPLIES} ${DNS_APPLIED}`
      : `VPN server ${name}'s configs name ${dns} for DNS. ${NODE_APPLIES} ${DNS_APPLIED}`,
};

export function printResult(
  command: ServerCommand,
  result: ServerCommandResult,
  publicUrl: string,
  print: (line: string) => void,
) {
  if ("servers" in result) {
    if (result.servers.length === 0) print("No VPN servers yet: npm run vpn -- add-server …");
    for (const server of result.servers) print(describeServer(server));
    return;
  }
  if ("services" in result) {
    if (result.services.length === 0)
      print("No streaming services are checked: npm run vpn -- add-service NAME URL");
    for (const service of result.services) print(describeStreamingService(service));
    return;
  }
  if ("service" in result) {
    print(
      `Streaming service ${result.service.name} added: every node's agent checks it from its exit at its next report; /admin/servers shows each server's result.`,
    );
    print(describeStreamingService(result.service));
    return;
  }
  if ("removedService" in result)
    return print(`Streaming service ${result.removedService} removed: no node checks it any more.`);
  if ("removed" in result)
    return print(`VPN server ${result.removed} removed; its node token no longer works.`);
  if ("revoked" in result)
    return print(
      `VPN server ${result.emptied}: ${plural(result.revoked, "device")} revoked; each owner was e-mailed. npm run vpn -- remove-server ${result.emptied} can remove it now.`,
    );
  if ("moved" in result) {
    print(
      `VPN server ${result.emptied}: ${plural(result.moved, "device")} moved${result.to.length ? ` to ${result.to.join(", ")}` : ""}; each owner was e-mailed the new config.`,
    );
    print(
      result.remaining
        ? `${plural(result.remaining, "device")} stayed: no server there can take a device (npm run vpn -- list-servers says why).`
        : `It holds no live device: npm run vpn -- remove-server ${result.emptied} can remove it now.`,
    );
    return;
  }
  if ("server" in result) {
    const { server } = result;
    if (command.command === "set-exit")
      print(
        server.exitAddresses.length
          ? `VPN server ${server.name} exits from ${server.exitAddresses.join(", ")}: /check recognises them.`
          : `VPN server ${server.name} has no exit addresses: /check recognises none of its visitors.`,
      );
    else print(STATUS_LINES[command.command]?.(server) ?? `VPN server ${server.name}:`);
    print(describeServer(server));
    return;
  }
  print(`VPN server ${result.name}: node token (shown once; store it on the node in a mode-0600 file):`);
  print(result.nodeToken);
  print(nodeSetupAdvice(publicUrl, result.endpoint));
}

/** One streaming service as `list-services` prints it (decision 133). */
export function describeStreamingService(service: {
  name: string;
  url: string;
  expectStatus: number;
  bodyContains: string | null;
  bodyLacks: string | null;
  required: boolean;
}): string {
  const answer = [
    `status ${service.expectStatus}`,
    ...(service.bodyContains ? [`holds "${service.bodyContains}"`] : []),
    ...(service.bodyLacks ? [`without "${service.bodyLacks}"`] : []),
  ].join(", ");
  return `${service.name}  ${service.url}  works when: ${answer}  ${service.required ? "required" : "shown only"}`;
}
