import { and, count, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Config } from "#server/config.ts";
import type { Database } from "#server/db/client.ts";
import { devices, type VpnServerStatus } from "#server/db/schema/index.ts";
import { conflict } from "#server/domain/errors.ts";
import type { ConfigEmailDeps } from "#server/domain/mail/config-email.ts";
import { recordStaffAction, staffReasonSchema, type StaffActor } from "#server/domain/ops/audit.ts";
import { moveDevicesOffServer } from "./device-moves.ts";
import { addServer, newServerFieldsSchema, type ServerDefaults } from "./server-admin.ts";
import { lockServer, serverSummary, setServerEndpoint, setServerStatus } from "./server-edits.ts";
import { vpnServerFields } from "./server-fields.ts";
import { rotateNodeToken } from "./servers.ts";

// The staff console's server actions (/api/admin/servers/*): the operator's own
// commands (server-admin.ts, the same rules as `npm run vpn`), each recorded in the audit log
// with the reason staff typed, in the transaction of the change.

/** POST /api/admin/servers/add: the fields of `npm run vpn -- add-server`. */
export const addServerSchema = newServerFieldsSchema.extend({ reason: staffReasonSchema }).strict();

/** The other actions name one server by id. */
export const serverActionSchema = z.object({ serverId: z.uuid(), reason: staffReasonSchema }).strict();

export const setEndpointSchema = z
  .object({ serverId: z.uuid(), endpoint: vpnServerFields.endpoint, reason: staffReasonSchema })
  .strict();

type AddServerInput = z.infer<typeof addServerSchema>;
type ServerActionInput = z.infer<typeof serverActionSchema>;

const target = (serverId: string) => ({ targetType: "vpn-server", targetId: serverId });

/** Registers a server; the node token is in this answer only (only its hash is stored). */
export async function addServerAsStaff(
  db: Database,
  config: ServerDefaults,
  staff: StaffActor,
  { reason, ...fields }: AddServerInput,
) {
  return db.transaction(async (tx) => {
    const added = await addServer(tx, config, fields);
    const server = await serverSummary(tx, added.id);
    // Every setting the new server took, defaults included: the entry says what configs will carry.
    await recordStaffAction(tx, staff, {
      action: "server.add",
      ...target(added.id),
      reason,
      details: {
        name: server.name,
        region: server.region,
        endpoint: server.endpoint,
        ipv4: server.ipv4Cidr,
        ipv6: server.ipv6Cidr,
        dns: server.dns,
        publicKey: server.publicKey,
        clientMtu: server.clientMtu,
        alternatePorts: server.alternatePorts,
        nodeResolver: server.nodeResolver,
      },
    });
    return { server, nodeToken: added.nodeToken };
  });
}

/** A new node token (the old one stops working at once); in this answer only. */
export async function rotateNodeTokenAsStaff(db: Database, staff: StaffActor, input: ServerActionInput) {
  return db.transaction(async (tx) => {
    const server = await lockServer(tx, input.serverId);
    const rotated = (await rotateNodeToken(tx, server.name))!;
    await recordStaffAction(tx, staff, {
      action: "server.rotate-token",
      ...target(server.id),
      reason: input.reason,
      details: { name: server.name },
    });
    return { server: await serverSummary(tx, server.id), nodeToken: rotated.nodeToken };
  });
}

export async function setEndpointAsStaff(
  db: Database,
  staff: StaffActor,
  input: z.infer<typeof setEndpointSchema>,
) {
  return db.transaction(async (tx) => {
    const before = await lockServer(tx, input.serverId);
    const server = await setServerEndpoint(tx, before.id, input.endpoint);
    await recordStaffAction(tx, staff, {
      action: "server.set-endpoint",
      ...target(server.id),
      reason: input.reason,
      details: { name: server.name, from: before.endpoint, to: server.endpoint },
    });
    return { server };
  });
}

const STATUS_ACTIONS = {
  draining: "server.drain",
  disabled: "server.disable",
  active: "server.enable",
} as const satisfies Record<VpnServerStatus, string>;

/** Drain, disable or enable (setServerStatus: 409 when it already has that status). */
export async function setStatusAsStaff(
  db: Database,
  config: Pick<Config, "NAIJALINK_MODE">,
  staff: StaffActor,
  input: ServerActionInput,
  status: VpnServerStatus,
) {
  return db.transaction(async (tx) => {
    const before = await lockServer(tx, input.serverId);
    const server = await setServerStatus(tx, before.id, status, config);
    await recordStaffAction(tx, staff, {
      action: STATUS_ACTIONS[status],
      ...target(server.id),
      reason: input.reason,
      details: { name: server.name, from: before.status, to: status },
    });
    return { server };
  });
}

/**
 * Moves every live device off a draining or disabled server (`moveDevicesOffServer`: one
 * transaction and one new-config e-mail per device). Those moves cannot share a transaction with
 * the audit entry, so the entry is committed first: the log never misses a move that happened.
 */
export async function moveDevicesAsStaff(
  db: Database,
  deps: ConfigEmailDeps & { mail: { wake(): void } },
  staff: StaffActor,
  input: ServerActionInput,
  now = new Date(),
) {
  const server = await db.transaction(async (tx) => {
    const locked = await lockServer(tx, input.serverId);
    if (locked.status === "active")
      throw conflict(`Drain ${locked.name} first: while it is active it takes new devices.`);
    const [live] = await tx
      .select({ value: count() })
      .from(devices)
      .where(and(eq(devices.vpnServerId, locked.id), isNull(devices.revokedAt)));
    await recordStaffAction(
      tx,
      staff,
      {
        action: "server.move-devices",
        ...target(locked.id),
        reason: input.reason,
        details: { name: locked.name, liveDevices: Number(live?.value ?? 0) },
      },
      now,
    );
    return locked;
  });
  const { moved, remaining } = await moveDevicesOffServer(db, deps, server.id, now);
  deps.mail.wake();
  return { moved: moved.length, remaining, to: [...new Set(moved.map((move) => move.to.name))] };
}
