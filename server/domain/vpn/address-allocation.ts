import { getTableColumns, sql, type SQL } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import { queryRows, type Executor } from "#server/db/client.ts";
import { vpnServers, type VpnServer } from "#server/db/schema/index.ts";
import { failsRequiredCheck } from "./streaming-checks.ts";

const serverColumns = Object.entries(getTableColumns(vpnServers));
const serverSelectList = sql.join(
  serverColumns.map(
    ([key, column]) =>
      sql`chosen.${sql.identifier(column.keyAsName ? toSnakeCase(key) : column.name)} as ${sql.identifier(key)}`,
  ),
  sql`, `,
);

/**
 * A server can take one more device: a released offset waits in its free list, or its
 * high-water mark is still inside both pools (`poolCapacity` of addresses.ts, in SQL). A full
 * server is passed over even when it is the least loaded, so it never blocks the others.
 */
const hasFreeAddress = sql`(
  vpn_servers.next_address_index <= least(
    power(2::numeric, 32 - masklen(vpn_servers.ipv4_cidr::cidr)) - 2,
    power(2::numeric, 128 - masklen(vpn_servers.ipv6_cidr::cidr)) - 1,
    2000000000)
  or exists (select 1 from vpn_free_addresses free where free.server_id = vpn_servers.id))`;

/**
 * Active (not draining or disabled, decision 078), with a registered node key, and an address
 * left: a server a device can be issued on (the condition of `vpn_servers_least_loaded_idx`).
 * The demo's development server (a placeholder endpoint) only until a real server's node has
 * registered its key (decision 094): adding a real server does not stop a demo's sales while its
 * node is being set up, and once one has registered no buyer gets a config that can never connect.
 * `serverCondition` (server-state.ts) states the same rule for the operator.
 */
export const canTakeDevice = sql`(vpn_servers.status = 'active' and vpn_servers.public_key is not null and ${hasFreeAddress}
  and (not vpn_servers.development or not exists (
    select 1 from vpn_servers real where not real.development and real.public_key is not null)))`;

export interface Allocation {
  /** The slot the device takes, or null when every slot of the subscription is used. */
  slot: number | null;
  /** The chosen server, locked until the caller's transaction ends; undefined when none is available. */
  server?: VpnServer;
  /** The offset the device takes: the lowest released one, else the server's high-water mark. */
  addressIndex?: number;
}

/**
 * One statement (decision 044): the subscription's lowest free slot, the least-loaded active
 * server (of those passing every required streaming check, when any can take the device) with a free address by its `live_devices` counter (index `vpn_servers_least_loaded_idx`), locked `FOR UPDATE`, and that server's next offset — the
 * lowest entry popped from `vpn_free_addresses`, else `next_address_index`. Nothing is locked
 * or popped when no slot is free. The caller must lock the subscription row first (in an
 * earlier statement, so this one's snapshot sees the devices committed before that lock).
 *
 * The pop uses `FOR UPDATE SKIP LOCKED`, so a free row that a transaction committed away while
 * this one waited for the server lock is skipped rather than reused; the high-water mark comes
 * from the locked (latest) server row. Inserting the device raises the mark and counts it
 * (trigger `devices_allocation_state`).
 */
export async function allocateAddress(
  tx: Executor,
  subscription: { id: string; deviceLimit: number },
): Promise<Allocation> {
  const [row] = await queryRows<Record<string, unknown>>(
    tx,
    sql`with free_slot as (
          select min(g)::int as slot from generate_series(1, ${subscription.deviceLimit}::int) g
          where g not in (select d.slot from devices d where d.subscription_id = ${subscription.id} and d.revoked_at is null)
        ),
        ${chosenServerAndOffset(
          sql`(select slot from free_slot) is not null`,
          // A server a required streaming service refuses comes last, never excluded (decision 133).
          sql`${failsRequiredCheck}, live_devices, created_at`,
        )}
        select free_slot.slot as "allocatedSlot",
               (select address_index from reused) as "reusedIndex",
               ${serverSelectList}
        from free_slot left join chosen on true`,
  );
  if (!row || row.allocatedSlot == null) return { slot: null };
  if (row.id == null) return { slot: Number(row.allocatedSlot) };
  const server = serverFromRow(row);
  return {
    slot: Number(row.allocatedSlot),
    server,
    addressIndex: Number(row.reusedIndex ?? server.nextAddressIndex),
  };
}

/** Where a device that already holds a slot may go (`moveDevice`); every field narrows the choice. */
export interface ServerChoice {
  serverId?: string;
  region?: string;
  /** The server it is on now. */
  excludeServerId?: string;
  /** Among the rest, servers of this region first (emptying a server keeps its buyers' location when it can). */
  preferRegion?: string;
}

/**
 * `allocateAddress` without a slot: the least-loaded server that can take a device and fits
 * `choice`, locked until the caller's transaction ends, and its next offset. Undefined when none has room.
 */
export async function allocateAddressOn(
  tx: Executor,
  choice: ServerChoice,
): Promise<{ server: VpnServer; addressIndex: number } | undefined> {
  const conditions = [sql`true`];
  if (choice.serverId !== undefined) conditions.push(sql`vpn_servers.id = ${choice.serverId}`);
  if (choice.region !== undefined) conditions.push(sql`vpn_servers.region = ${choice.region}`);
  if (choice.excludeServerId !== undefined) conditions.push(sql`vpn_servers.id <> ${choice.excludeServerId}`);
  const preferred =
    choice.preferRegion === undefined ? sql`` : sql`(vpn_servers.region = ${choice.preferRegion}) desc, `;
  const [row] = await queryRows<Record<string, unknown>>(
    tx,
    sql`with ${chosenServerAndOffset(sql.join(conditions, sql` and `), sql`${preferred}live_devices, created_at`)}
        select (select address_index from reused) as "reusedIndex", ${serverSelectList} from chosen`,
  );
  if (!row) return undefined;
  const server = serverFromRow(row);
  return { server, addressIndex: Number(row.reusedIndex ?? server.nextAddressIndex) };
}

/** The `chosen` (server, locked) and `reused` (its lowest released offset, popped) parts of both allocations. */
function chosenServerAndOffset(condition: SQL, order: SQL): SQL {
  return sql`chosen as (
          select * from vpn_servers
          where ${canTakeDevice} and ${condition}
          order by ${order}
          limit 1
          for update
        ),
        reused as (
          delete from vpn_free_addresses f
          where f.server_id = (select id from chosen)
            and f.address_index = (
              select l.address_index from vpn_free_addresses l
              where l.server_id = (select id from chosen)
              order by l.address_index
              limit 1
              for update skip locked
            )
          returning f.address_index
        )`;
}

function serverFromRow(row: Record<string, unknown>): VpnServer {
  return Object.fromEntries(
    serverColumns.map(([key, column]) => [
      key,
      row[key] == null ? null : (column.mapFromDriverValue(row[key]) as unknown),
    ]),
  ) as VpnServer;
}
