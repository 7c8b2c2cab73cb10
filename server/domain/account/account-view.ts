import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import { planChange, type AwaitingPayment } from "#server/domain/billing/plan-change.ts";
import { addDeviceRefusal, type AddDeviceRefusal } from "#core/device-actions.ts";
import { findPlan, type PlanType } from "#core/plans.ts";
import {
  checkoutSessions,
  devices,
  subscriptions,
  vpnServers,
  type Subscription,
} from "#server/db/schema/index.ts";
import { isDemoPurchase } from "#server/domain/billing/demo-purchases.ts";
import { guaranteeOfferOf, type GuaranteeOffer } from "#server/domain/billing/guarantee.ts";
import { reversalDates } from "#server/domain/billing/history.ts";
import { alternateOffer, downloadUrl, type AlternateOffer } from "#server/domain/vpn/config-file.ts";
import { isConfigOutdated } from "#server/domain/vpn/config-notices.ts";
import { regionsWithRoom } from "#server/domain/vpn/servers.ts";
import { currentPeriodStart, transferThisPeriod, type DeviceTransfer } from "#server/domain/vpn/transfer.ts";
import { isUsable } from "#server/domain/vpn/usable.ts";
import { ownedBy, type AccountServices } from "./account.ts";
import type { Customer } from "./customer-auth.ts";

// What the account page lists: each subscription the customer owns, with its live devices.

export type AccountSubscriptionStatus =
  "active" | "past_due" | "cancels" | "canceled" | "expired" | "refunded" | "disputed";

export interface AccountDevice {
  id: string;
  slot: number;
  name: string;
  server: { name: string; region: string } | null;
  createdAt: string;
  activatedAt: string | null;
  lastHandshakeAt: string | null;
  /** The data it moved in the subscription's current period; null when its node never reported any. */
  transfer: DeviceTransfer | null;
  /** The capability link of the .conf (the same as the success page's). */
  downloadUrl: string;
  /** "Can't connect on this network? Use port 443": the same device on its server's alternate port. */
  alternate: AlternateOffer | null;
  /** Its server changed what configs say since this one's config was handed out: download it again. */
  configOutdated: boolean;
  /** The regions it could be moved to now (others with room); empty hides the Move action. */
  moveRegions: string[];
}

export interface AccountSubscription {
  id: string;
  planType: PlanType;
  planName: string;
  price: string;
  period: string;
  status: AccountSubscriptionStatus;
  expiresAt: string;
  deviceLimit: number;
  /** Whether its devices may be added to and re-keyed: paid up and inside its period. */
  usable: boolean;
  /** Why "Add a device" is not offered now, or null when it is. */
  addDevice: AddDeviceRefusal | null;
  /** When its payment went back, for a refunded or disputed one. */
  reversedAt: string | null;
  /** Bought with the demo's test card before the store took real payments: it ends, never renews or changes. */
  demoPurchase: boolean;
  /** A plan change whose Stripe invoice is not paid yet (billing/plan-change.ts), or null. */
  awaitingPayment: AwaitingPayment | null;
  /**
   * "Refund this purchase" under the 7-day guarantee (decision 136), or why it is not offered;
   * null for a plan that was refunded or disputed already (its notice says so).
   */
  guarantee: GuaranteeOffer | null;
  devices: AccountDevice[];
}

function statusOf(subscription: Subscription, now: Date): AccountSubscriptionStatus {
  if (subscription.status === "refunded" || subscription.status === "disputed") return subscription.status;
  if (subscription.status === "canceled") return "canceled";
  if (!isUsable(subscription, now)) return "expired";
  if (subscription.cancelAtPeriodEnd) return "cancels";
  return subscription.status === "past_due" ? "past_due" : "active";
}

/** Every subscription of the customer, newest first, each with its live devices by slot. */
export async function listAccount(
  services: Pick<AccountServices, "db" | "config" | "sealer">,
  customer: Customer,
  now = new Date(),
): Promise<AccountSubscription[]> {
  const rows = await services.db
    .select({
      subscription: subscriptions,
      provider: checkoutSessions.provider,
      device: devices,
      server: vpnServers,
      periodStart: sql<Date>`${currentPeriodStart(subscriptions)}`.mapWith(subscriptions.createdAt),
    })
    .from(subscriptions)
    .leftJoin(checkoutSessions, eq(checkoutSessions.id, subscriptions.checkoutSessionId))
    .leftJoin(devices, and(eq(devices.subscriptionId, subscriptions.id), isNull(devices.revokedAt)))
    .leftJoin(vpnServers, eq(vpnServers.id, devices.vpnServerId))
    .where(ownedBy(customer))
    .orderBy(desc(subscriptions.createdAt), asc(devices.slot));
  const roomIn = rows.length > 0 ? await regionsWithRoom(services.db) : [];
  const byId = new Map<string, AccountSubscription>();
  const bought = new Map<string, { subscription: Subscription; provider: "stripe" | "test" }>();
  for (const { subscription, provider, device, server, periodStart } of rows) {
    let entry = byId.get(subscription.id);
    if (!entry) {
      if (provider) bought.set(subscription.id, { subscription, provider });
      const plan = findPlan(subscription.planId);
      const usable = isUsable(subscription, now);
      entry = {
        id: subscription.id,
        planType: subscription.planType,
        planName: plan?.name ?? subscription.planId,
        price: plan?.price ?? "",
        period: plan?.period ?? "",
        status: statusOf(subscription, now),
        expiresAt: subscription.expiresAt.toISOString(),
        deviceLimit: subscription.deviceLimit,
        usable,
        addDevice: null,
        reversedAt: null,
        demoPurchase: provider !== null && isDemoPurchase(provider, services.config),
        awaitingPayment: null,
        guarantee: null,
        devices: [],
      };
      byId.set(subscription.id, entry);
    }
    // An ended subscription's links answer 410: it lists no devices to download.
    if (device && entry.usable) {
      entry.devices.push({
        id: device.id,
        slot: device.slot,
        name: device.name ?? `Device ${device.slot}`,
        server: server ? { name: server.name, region: server.region } : null,
        createdAt: device.createdAt.toISOString(),
        activatedAt: device.activatedAt?.toISOString() ?? null,
        lastHandshakeAt: device.lastHandshakeAt?.toISOString() ?? null,
        transfer: transferThisPeriod(device, periodStart),
        downloadUrl: downloadUrl(services, device),
        alternate: (server && alternateOffer(downloadUrl(services, device), server)) ?? null,
        configOutdated: server ? isConfigOutdated(device, server) : false,
        moveRegions: roomIn.filter((region) => region !== server?.region),
      });
    }
  }
  const listed = [...byId.values()];
  for (const entry of listed)
    entry.addDevice = addDeviceRefusal({
      usable: entry.usable,
      deviceLimit: entry.deviceLimit,
      liveDevices: entry.devices.length,
      mayClaimSlot: true,
      roomForDevice: roomIn.length > 0,
    });
  for (const awaiting of await planChange({
    step: "awaiting",
    executor: services.db,
    subscriptionIds: listed.map((entry) => entry.id),
  }))
    byId.get(awaiting.subscriptionId)!.awaitingPayment = awaiting;
  for (const entry of listed) {
    const purchase = bought.get(entry.id);
    if (!purchase || entry.status === "refunded" || entry.status === "disputed") continue;
    entry.guarantee = await guaranteeOfferOf(
      services.db,
      services.config,
      purchase.subscription,
      purchase.provider,
      now,
    );
  }
  const reversed = listed.filter((entry) => entry.status === "refunded" || entry.status === "disputed");
  if (reversed.length > 0) {
    const dates = await reversalDates(
      services.db,
      reversed.map((entry) => entry.id),
    );
    for (const entry of reversed) entry.reversedAt = dates.get(entry.id)?.toISOString() ?? null;
  }
  return listed;
}
