import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { PLANS } from "#core/plans.ts";
import type { Executor } from "#server/db/client.ts";
import type { Device, VpnServer } from "#server/db/schema/index.ts";

// The data each device moved in its subscription's current period, from the
// WireGuard transfer counters the node agent reports. A counter counts from zero whenever its
// peer appears on an interface (agent or interface restart, new keys, another server), so the
// control plane keeps the last raw counters and adds differences.

const planTypesBilledEvery = (interval: "month" | "year") => [
  ...new Set(PLANS.filter((plan) => plan.interval === interval).map((plan) => plan.planType)),
];

/**
 * When the subscription's current period began, in SQL: a recurring plan's paid period is the
 * one interval (calendar month or year, in UTC, as Stripe counts) ending at `expires_at`, never
 * before the subscription began; a pass has one period, since it started.
 */
export function currentPeriodStart(subscription: {
  planType: SQLWrapper;
  createdAt: SQLWrapper;
  expiresAt: SQLWrapper;
}): SQL {
  const { planType, createdAt, expiresAt } = subscription;
  const oneBefore = (interval: string) =>
    sql`greatest(${createdAt}, (${expiresAt} at time zone 'UTC' - interval '${sql.raw(interval)}') at time zone 'UTC')`;
  const inList = (types: string[]) =>
    sql.join(
      types.map((type) => sql`${type}`),
      sql`, `,
    );
  return sql`(case
    when ${planType} in (${inList(planTypesBilledEvery("month"))}) then ${oneBefore("1 month")}
    when ${planType} in (${inList(planTypesBilledEvery("year"))}) then ${oneBefore("1 year")}
    else ${createdAt} end)`;
}

export interface PeerTransfer {
  publicKey: string;
  rxBytes: number;
  txBytes: number;
}

/**
 * Adds each peer's transfer since the last report to its device on this server: the difference
 * to the last raw counters, or the whole counter when they went down, were read on another
 * server or never reported. A new period starts the sums again. One statement per 1,000 peers.
 */
export async function recordPeerTransfers(
  executor: Executor,
  server: Pick<VpnServer, "id">,
  transfers: PeerTransfer[],
): Promise<void> {
  const periodStart = currentPeriodStart({
    planType: sql`s.plan_type`,
    createdAt: sql`s.created_at`,
    expiresAt: sql`s.expires_at`,
  });
  const sinceLast = (raw: SQL, last: SQL) =>
    sql`case when d.transfer_counters_server_id = ${server.id} and ${raw} >= ${last}
      then ${raw} - ${last} else ${raw} end`;
  const sumSoFar = (sum: SQL) => sql`case when d.transfer_period_start = p.start then ${sum} else 0 end`;
  for (let start = 0; start < transfers.length; start += 1000) {
    const values = sql.join(
      transfers
        .slice(start, start + 1000)
        .map((peer) => sql`(${peer.publicKey}, ${peer.rxBytes}::bigint, ${peer.txBytes}::bigint)`),
      sql`, `,
    );
    await executor.execute(sql`
      update devices d set
        transfer_rx_bytes = ${sumSoFar(sql`d.transfer_rx_bytes`)} + ${sinceLast(sql`v.rx`, sql`d.transfer_counters_rx`)},
        transfer_tx_bytes = ${sumSoFar(sql`d.transfer_tx_bytes`)} + ${sinceLast(sql`v.tx`, sql`d.transfer_counters_tx`)},
        transfer_period_start = p.start,
        transfer_counters_server_id = ${server.id},
        transfer_counters_rx = v.rx,
        transfer_counters_tx = v.tx
      from (values ${values}) as v(public_key, rx, tx), subscriptions s,
        lateral (select ${periodStart} as start) p
      where d.public_key = v.public_key and d.vpn_server_id = ${server.id} and s.id = d.subscription_id`);
  }
}

/** What a device moved this period, as the customer sees it; null when its node never reported any. */
export interface DeviceTransfer {
  /** Bytes sent to the device (the server's tx). */
  downloadedBytes: number;
  /** Bytes received from the device (the server's rx). */
  uploadedBytes: number;
}

/**
 * The device's figure for the period that began at `periodStart`: its sums when they belong to
 * that period, zero when a new period began and nothing was reported since.
 */
export function transferThisPeriod(
  device: Pick<Device, "transferPeriodStart" | "transferRxBytes" | "transferTxBytes">,
  periodStart: Date,
): DeviceTransfer | null {
  if (!device.transferPeriodStart) return null;
  if (device.transferPeriodStart.getTime() !== periodStart.getTime())
    return { downloadedBytes: 0, uploadedBytes: 0 };
  return { downloadedBytes: device.transferTxBytes, uploadedBytes: device.transferRxBytes };
}
