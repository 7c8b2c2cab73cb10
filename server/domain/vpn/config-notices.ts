// Out-of-date configs: a server's `client_config_changed_at` moves when what its
// configs say changes (MTU, DNS, endpoint, an alternate port taken away, the node's key); a device
// whose config was last handed out before that is told so on the account page and, once per
// change, by e-mail with fresh download links.
import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import { configFileName } from "#core/config-file-name.ts";
import type { Database } from "#server/db/client.ts";
import { devices, subscriptions, vpnServers, type Device, type VpnServer } from "#server/db/schema/index.ts";
import { planName, queueToCustomer, type CustomerEmailDeps } from "#server/domain/mail/customer-emails.ts";
import type { Sealer } from "#server/secrets.ts";
import { alternateOffer, downloadUrl } from "./config-file.ts";
import { usableSubscription } from "./usable.ts";

/** An operator's changes within this long of each other lead to one e-mail, after the last. */
export const CONFIG_NOTICE_SETTLE_MS = 10 * 60_000;
/** Devices handled per server and run; the rest wait for the next run. */
export const CONFIG_NOTICE_BATCH = 200;

/** Whether the device's config was handed out before its server last changed what configs say. */
export function isConfigOutdated(
  device: Pick<Device, "configIssuedAt">,
  server: Pick<VpnServer, "clientConfigChangedAt">,
): boolean {
  return device.configIssuedAt < server.clientConfigChangedAt;
}

export type ConfigNoticeServices = CustomerEmailDeps & {
  db: Database;
  sealer: Sealer;
  mail: { wake(): void };
};

/**
 * Queues the "download your config again" e-mail of every live device of a usable subscription
 * whose config is out of date, one e-mail per subscription and server change, once the change
 * has settled. A server is marked done (`config_notices_queued_for`) when none is left, so a
 * run looks only at servers with a change to announce.
 */
export async function queueConfigUpdateNotices(
  services: ConfigNoticeServices,
  now = new Date(),
): Promise<{ configNotices: number }> {
  const pending = await services.db
    .select({ id: vpnServers.id })
    .from(vpnServers)
    .where(
      and(
        lte(vpnServers.clientConfigChangedAt, new Date(now.getTime() - CONFIG_NOTICE_SETTLE_MS)),
        sql`${vpnServers.configNoticesQueuedFor} is distinct from ${vpnServers.clientConfigChangedAt}`,
      ),
    );
  let configNotices = 0;
  for (const { id } of pending) configNotices += await noticesForServer(services, id, now);
  if (configNotices) services.mail.wake();
  return { configNotices };
}

async function noticesForServer(services: ConfigNoticeServices, serverId: string, now: Date) {
  return services.db.transaction(async (tx) => {
    // Another process's run holds it: that run covers it.
    const [server] = await tx
      .select()
      .from(vpnServers)
      .where(eq(vpnServers.id, serverId))
      .for("update", { skipLocked: true });
    if (!server) return 0;
    const changedAt = server.clientConfigChangedAt;
    const due = await tx
      .select({ device: devices, subscription: subscriptions })
      .from(devices)
      .innerJoin(subscriptions, eq(subscriptions.id, devices.subscriptionId))
      .where(
        and(
          eq(devices.vpnServerId, server.id),
          isNull(devices.revokedAt),
          usableSubscription(now),
          lt(devices.configIssuedAt, changedAt),
          or(isNull(devices.configNoticeAt), lt(devices.configNoticeAt, changedAt)),
        ),
      )
      .orderBy(asc(devices.subscriptionId), asc(devices.slot))
      .limit(CONFIG_NOTICE_BATCH);
    const bySubscription = new Map<string, typeof due>();
    for (const row of due)
      bySubscription.set(row.subscription.id, [...(bySubscription.get(row.subscription.id) ?? []), row]);
    let queued = 0;
    for (const rows of bySubscription.values()) {
      const subscription = rows[0]!.subscription;
      const id = await queueToCustomer(tx, services, subscription, {
        template: "config-update",
        data: {
          planName: planName(subscription),
          devices: rows.map(({ device }) => {
            const link = downloadUrl(services, device);
            return {
              deviceName: device.name ?? `Device ${device.slot}`,
              fileName: configFileName(services.config.BRAND_NAME, device.slot),
              downloadUrl: link,
              alternatePort: alternateOffer(link, server),
            };
          }),
        },
      });
      if (id) queued += 1;
    }
    if (due.length > 0)
      await tx
        .update(devices)
        .set({ configNoticeAt: now })
        .where(
          inArray(
            devices.id,
            due.map((row) => row.device.id),
          ),
        );
    if (due.length < CONFIG_NOTICE_BATCH)
      await tx
        .update(vpnServers)
        .set({ configNoticesQueuedFor: changedAt })
        .where(eq(vpnServers.id, server.id));
    return queued;
  });
}
