// The operator's commands for what a server's configs say, as `npm run vpn` and
// its admin API (POST /api/nodes/servers) take them; client-settings.ts holds the rules.
import { z } from "zod";
import type { Executor } from "#server/db/client.ts";
import type { VpnServer } from "#server/db/schema/index.ts";
import {
  changeAlternatePorts,
  changeClientDns,
  changeClientMtu,
  clientDnsSchema,
} from "./client-settings.ts";
import { vpnServerFields } from "./server-fields.ts";

const serverRef = z.string().min(1).max(63);

/** The three commands' request bodies, strict: nothing else is taken. */
export const clientSettingCommandSchemas = [
  z.object({ command: z.literal("set-mtu"), server: serverRef, mtu: vpnServerFields.clientMtu }).strict(),
  z
    .object({ command: z.literal("set-ports"), server: serverRef, ports: vpnServerFields.alternatePorts })
    .strict(),
  z.object({ command: z.literal("set-dns"), server: serverRef, dns: clientDnsSchema }).strict(),
] as const;

export type ClientSettingCommand = z.input<(typeof clientSettingCommandSchemas)[number]>;

/** The change a command makes to the locked server. */
export function clientSettingChange(command: ClientSettingCommand, now = new Date()) {
  return (tx: Executor, server: VpnServer): Promise<void> => {
    switch (command.command) {
      case "set-mtu":
        return changeClientMtu(tx, server, command.mtu, now);
      case "set-ports":
        return changeAlternatePorts(tx, server, command.ports, now);
      case "set-dns":
        return changeClientDns(tx, server, command.dns, now);
    }
  };
}

/**
 * The CLI's words for them: `set-mtu SERVER 1280`, `set-ports SERVER 443,53` (`none` for no
 * other port), `set-dns SERVER node|IP[,IP…]`. Undefined for another command.
 */
export function parseClientSettingArguments(
  name: string,
  server: string,
  value: string,
): ClientSettingCommand | undefined {
  const list = (text: string) => text.split(",").map((entry) => entry.trim());
  switch (name) {
    case "set-mtu":
      return { command: name, server, mtu: Number(value) };
    case "set-ports":
      return { command: name, server, ports: value === "none" ? [] : list(value).map(Number) };
    case "set-dns":
      return { command: name, server, dns: value };
    default:
      return undefined;
  }
}
