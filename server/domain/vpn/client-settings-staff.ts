// The staff console's client-settings actions on /admin/servers: the operator's
// set-mtu / set-ports / set-dns (client-settings.ts), each with the reason staff typed, recorded
// in the audit log in the transaction of the change.
import { z } from "zod";
import type { Database } from "#server/db/client.ts";
import type { VpnServer } from "#server/db/schema/index.ts";
import { recordStaffAction, staffReasonSchema, type StaffActor } from "#server/domain/ops/audit.ts";
import { clientSettingChange, type ClientSettingCommand } from "./client-setting-commands.ts";
import { lockServer, serverSummary } from "./server-edits.ts";

/** A comma list from a text field ("443, 53"; empty for none). */
const commaList = z
  .string()
  .max(300)
  .transform((text) =>
    text
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean),
  );

const numberText = (entry: string) => (/^[0-9]{1,6}$/.test(entry) ? Number(entry) : Number.NaN);

/** The servers page's form (one schema, three intents); values are the form's text, checked again by the domain. */
export const clientSettingFormSchema = z.discriminatedUnion("intent", [
  z
    .object({
      intent: z.literal("set-mtu"),
      serverId: z.uuid(),
      mtu: z
        .string()
        .regex(/^[0-9]{1,5}$/, "the MTU is a number, 1280-1420")
        .transform(Number),
      reason: staffReasonSchema,
    })
    .strict(),
  z
    .object({
      intent: z.literal("set-ports"),
      serverId: z.uuid(),
      ports: commaList.transform((entries) => entries.map(numberText)),
      reason: staffReasonSchema,
    })
    .strict(),
  z
    .object({
      intent: z.literal("set-dns"),
      serverId: z.uuid(),
      dns: z
        .string()
        .trim()
        .min(1, "say node, or list the resolvers")
        .max(300)
        .transform((text) => (text.toLowerCase() === "node" ? "node" : text)),
      reason: staffReasonSchema,
    })
    .strict(),
]);

export type ClientSettingForm = z.output<typeof clientSettingFormSchema>;

const settingOf = (server: Pick<VpnServer, "clientMtu" | "alternatePorts" | "nodeResolver" | "dns">) => ({
  mtu: server.clientMtu,
  ports: server.alternatePorts,
  dns: server.nodeResolver ? "node" : server.dns,
});

function commandOf(input: ClientSettingForm): ClientSettingCommand {
  const server = input.serverId;
  switch (input.intent) {
    case "set-mtu":
      return { command: input.intent, server, mtu: input.mtu };
    case "set-ports":
      return { command: input.intent, server, ports: input.ports };
    case "set-dns":
      return { command: input.intent, server, dns: input.dns };
  }
}

export async function changeClientSettingAsStaff(
  db: Database,
  staff: StaffActor,
  input: ClientSettingForm,
  now = new Date(),
) {
  return db.transaction(async (tx) => {
    const before = await lockServer(tx, input.serverId);
    await clientSettingChange(commandOf(input), now)(tx, before);
    const server = await serverSummary(tx, before.id);
    const key = input.intent === "set-mtu" ? "mtu" : input.intent === "set-ports" ? "ports" : "dns";
    await recordStaffAction(
      tx,
      staff,
      {
        action: `server.${input.intent}`,
        targetType: "vpn-server",
        targetId: server.id,
        reason: input.reason,
        details: { name: server.name, from: settingOf(before)[key], to: settingOf(server)[key] },
      },
      now,
    );
    return { server };
  });
}
