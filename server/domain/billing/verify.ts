import type { PlanType } from "#core/plans.ts";
import { eq, sql } from "drizzle-orm";
import {
  checkoutSessions,
  subscriptions,
  type Device,
  type Subscription,
  type VpnServer,
} from "#server/db/schema/index.ts";
import { downloadUrl } from "#server/domain/vpn/config-file.ts";
import { configLinksOf, type ConfigLinks } from "#server/domain/vpn/config-downloads.ts";
import { deviceSummary, issueDevice, liveDevices } from "#server/domain/vpn/devices.ts";
import { preparedOnce, type Executor } from "#server/db/client.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import { endedStatusOf, isUsable } from "#server/domain/vpn/usable.ts";
import { rateLimited } from "#server/domain/errors.ts";
import { customerAddress } from "#server/domain/mail/customer-emails.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";
import {
  PaymentReversed,
  payingBrowserRequired,
  paymentNotCompleted,
  sessionNotFound,
  subscriptionEnded,
} from "./errors.ts";
import { fulfilCheckout, type BillingServices } from "./fulfil.ts";
import { reversalDates } from "./history.ts";
import { mayAddDevice, VERIFY_LIMITS, type VerifyCaller } from "./verify-caller.ts";
import { confirmWithProvider } from "./verify-provider.ts";

export { VERIFY_LIMITS, type VerifyCaller } from "./verify-caller.ts";

export interface VerifiedPayment {
  success: true;
  subscription: { planType: PlanType; deviceLimit: number; expiresAt: string; activeDevices: number };
  /** Null while no config could be issued yet (Configuration Pending). */
  downloadUrl: string | null;
  /** The order has an address the config e-mail goes to (it was queued with the device, or will be). */
  configEmailed: boolean;
  configSlot: number | null;
  /**
   * The configs this caller may see, by slot: every live device for the browser that paid, slot 1
   * alone for anyone else holding the link (decision 070).
   */
  devices: ConfigLinks[];
  /**
   * Whether this caller may claim another slot (`newDevice`): the browser that paid or the signed-in
   * owner. With `roomForDevice`, the success page offers "Add another device" only when it can
   * succeed.
   */
  mayClaimSlot: boolean;
  /** Some VPN server can take one more device now (asked only when the caller may claim a free slot). */
  roomForDevice: boolean;
  message: string;
}

interface Verification {
  subscription: Subscription;
  device: Device | undefined;
  activeDevices: number;
  shownDevices: Device[];
  mayClaimSlot: boolean;
  /** Servers of shown devices already in hand (the one a device was just issued on): not read again. */
  servers?: VpnServer[];
}

/**
 * The success page's check: the session must be paid (asking Stripe when its webhook has not
 * arrived yet), fulfilment runs (idempotently), and the answer is slot 1 — or, with
 * `newDevice` and only for the browser that paid, the next free slot. A reload of a fulfilled
 * session is answered from reads alone, without a transaction.
 */
export async function verifyPayment(
  services: BillingServices,
  input: { sessionId: string; newDevice?: boolean },
  caller: VerifyCaller,
  now = new Date(),
): Promise<VerifiedPayment> {
  const limit = await consumeRateLimit(services.db, `verify-payment:client:${caller.clientIp}`, {
    limit: VERIFY_LIMITS.perClient,
    windowMs: VERIFY_LIMITS.windowMs,
    now: now.getTime(),
  });
  if (!limit.allowed) throw rateLimited(limit.retryAfterSeconds);
  const [read] = await sessionWithSubscription(services.db).execute({ sessionId: input.sessionId });
  if (!read) throw sessionNotFound();
  if (read.subscription) await refuseReversed(services.db, read.subscription);
  // The link alone shows slot 1 (it is e-mailed and bookmarked); more slots need proof of the buyer.
  const provesBuyer = mayAddDevice(read.session, read.subscription, caller);
  if (input.newDevice && !provesBuyer) throw payingBrowserRequired();
  if (!input.newDevice && read.subscription && isUsable(read.subscription, now)) {
    const { firstDevice, liveDevices: activeDevices } = await deviceSummary(
      services.db,
      read.subscription.id,
    );
    if (firstDevice && !firstDevice.revokedAt)
      return answer(services, {
        subscription: read.subscription,
        device: firstDevice,
        activeDevices,
        shownDevices: await devicesShown(services.db, read.subscription.id, firstDevice, provesBuyer),
        mayClaimSlot: provesBuyer,
      });
  }
  const paid = read.session.status === "paid";
  const references = paid ? {} : await confirmWithProvider(services, read.session, now);

  const verification = await services.db.transaction(
    async (tx): Promise<Verification | { ended: Subscription }> => {
      const fulfilment = await fulfilCheckout(
        tx,
        services,
        paid ? read.session : read.session.id,
        references,
        now,
      );
      if (!fulfilment) throw paymentNotCompleted();
      const { subscription, newSubscriptionDevice } = fulfilment;
      // Answered after the commit: a subscription just recorded as refunded or disputed (a reversal
      // that arrived before the payment) must be kept, not rolled back with the refusal.
      if (!isUsable(subscription, now)) return { ended: subscription };
      // The purchase itself: slot 1 is the subscription's only device, nothing to read back.
      if (newSubscriptionDevice && !input.newDevice)
        return {
          subscription,
          device: newSubscriptionDevice.device,
          activeDevices: 1,
          shownDevices: [newSubscriptionDevice.device],
          mayClaimSlot: provesBuyer,
          servers: [newSubscriptionDevice.server],
        };
      const issued = input.newDevice ? await issueDevice(tx, services, subscription) : undefined;
      const { firstDevice, liveDevices: activeDevices } = await deviceSummary(tx, subscription.id);
      const device = issued?.device ?? firstDevice;
      if (device?.revokedAt) throw subscriptionEnded("canceled");
      const shownDevices = await devicesShown(tx, subscription.id, firstDevice, provesBuyer);
      const servers = issued ? [issued.server] : [];
      return { subscription, device, activeDevices, shownDevices, mayClaimSlot: provesBuyer, servers };
    },
  );
  services.mail.wake();
  if ("ended" in verification) {
    await refuseReversed(services.db, verification.ended);
    throw subscriptionEnded(endedStatusOf(verification.ended));
  }
  return answer(services, verification);
}

/** The checkout session and its subscription, if any: every success-page check starts here. */
const sessionWithSubscription = preparedOnce((db) =>
  db
    .select({ session: checkoutSessions, subscription: subscriptions })
    .from(checkoutSessions)
    .leftJoin(subscriptions, eq(subscriptions.checkoutSessionId, checkoutSessions.id))
    .where(eq(checkoutSessions.id, sql.placeholder("sessionId")))
    .prepare("verify_payment_session"),
);

/** A refunded or disputed order is answered as such, with the day its payment went back. */
async function refuseReversed(executor: Executor, subscription: Subscription): Promise<void> {
  if (subscription.status !== "refunded" && subscription.status !== "disputed") return;
  const at = (await reversalDates(executor, [subscription.id])).get(subscription.id);
  throw new PaymentReversed(subscription.status, at ?? subscription.updatedAt);
}

/**
 * The devices a verification lists: all live ones for the browser that paid (a reload shows every
 * device it added), slot 1 alone otherwise — a forwarded link must not open the other slots.
 */
async function devicesShown(
  executor: Executor,
  subscriptionId: string,
  firstDevice: Device | undefined,
  provesBuyer: boolean,
): Promise<Device[]> {
  if (provesBuyer) return liveDevices(executor, subscriptionId);
  return firstDevice && !firstDevice.revokedAt ? [firstDevice] : [];
}

async function answer(
  services: BillingServices,
  { subscription, device, activeDevices, shownDevices, mayClaimSlot, servers }: Verification,
): Promise<VerifiedPayment> {
  // Asked only when the answer matters: a buyer who may add and has a free slot.
  const roomForDevice =
    mayClaimSlot && activeDevices < subscription.deviceLimit && (await anyServerCanTakeDevice(services.db));
  return {
    success: true,
    subscription: {
      planType: subscription.planType,
      deviceLimit: subscription.deviceLimit,
      expiresAt: subscription.expiresAt.toISOString(),
      activeDevices,
    },
    downloadUrl: device ? downloadUrl(services, device) : null,
    configEmailed: customerAddress(subscription) !== null,
    configSlot: device?.slot ?? null,
    devices: await configLinksOf(services, shownDevices, servers),
    mayClaimSlot,
    roomForDevice,
    message: device
      ? `Your config for device ${device.slot} is ready.`
      : "Your payment is confirmed; your configuration is being prepared.",
  };
}
