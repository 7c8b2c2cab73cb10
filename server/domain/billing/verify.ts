import crypto from "node:crypto";
import type { PlanType } from "#app/lib/plans.ts";
import { eq } from "drizzle-orm";
import {
  checkoutSessions,
  subscriptions,
  type CheckoutSession,
  type Device,
  type Subscription,
} from "#server/db/schema/index.ts";
import { downloadUrl } from "#server/domain/vpn/config-file.ts";
import { configLinksOf, type ConfigLinks } from "#server/domain/vpn/config-downloads.ts";
import { deviceSummary, issueDevice, liveDevices } from "#server/domain/vpn/devices.ts";
import type { Executor } from "#server/db/client.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import { endedStatusOf, isUsable } from "#server/domain/vpn/usable.ts";
import { rateLimited } from "#server/domain/errors.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";
import { hashToken } from "#server/secrets.ts";
import { recordPayment } from "./checkout.ts";
import {
  PaymentReversed,
  payingBrowserRequired,
  paymentNeedsReview,
  paymentNotCompleted,
  providerUnavailable,
  sessionNotFound,
  subscriptionEnded,
} from "./errors.ts";
import { fulfilCheckout, type BillingServices, type StripeReferences } from "./fulfil.ts";
import { reversalDates } from "./history.ts";
import { receivedPayment, sessionState, stripeClient } from "./stripe-provider.ts";

export interface VerifiedPayment {
  success: true;
  subscription: { planType: PlanType; deviceLimit: number; expiresAt: string; activeDevices: number };
  /** Null while no config could be issued yet (Configuration Pending). */
  downloadUrl: string | null;
  configSlot: number | null;
  /**
   * The configs this caller may see, by slot: every live device for the browser that paid, slot 1
   * alone for anyone else holding the link (decision 070).
   */
  devices: ConfigLinks[];
  /**
   * Whether this caller may claim another slot (`newDevice`): the browser that paid or the signed-in
   * owner. With `roomForDevice`, the success page offers "Add another device" only when it can
   * succeed (decision 110).
   */
  mayClaimSlot: boolean;
  /** Some VPN server can take one more device now (asked only when the caller may claim a free slot). */
  roomForDevice: boolean;
  message: string;
}

/**
 * Per client only. There is no per-session limit (issue 25): anyone holding a session id could
 * spend it and block the buyer's success page; what it guarded (asking Stripe about one session)
 * has its own throttle, `stripeCheck`, which decides whether Stripe is asked, never whether the
 * caller is answered from the database.
 */
export const VERIFY_LIMITS = {
  /** Calls per minute from one client. */
  windowMs: 60_000,
  perClient: 60,
  /** How often Stripe is asked about one unpaid session. */
  stripeCheck: { limit: 1, windowMs: 5_000 },
};

/**
 * Who is asking: the client's address, the buyer cookie's token if the browser sent one, and the
 * address of the customer signed in at /account, if any (decision 067).
 */
export interface VerifyCaller {
  clientIp: string;
  buyerToken: string | null;
  customerEmail?: string | null;
}

interface Verification {
  subscription: Subscription;
  device: Device | undefined;
  activeDevices: number;
  shownDevices: Device[];
  mayClaimSlot: boolean;
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
  const [read] = await services.db
    .select({ session: checkoutSessions, subscription: subscriptions })
    .from(checkoutSessions)
    .leftJoin(subscriptions, eq(subscriptions.checkoutSessionId, checkoutSessions.id))
    .where(eq(checkoutSessions.id, input.sessionId));
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
          device: newSubscriptionDevice,
          activeDevices: 1,
          shownDevices: [newSubscriptionDevice],
          mayClaimSlot: provesBuyer,
        };
      const issued = input.newDevice ? (await issueDevice(tx, services, subscription)).device : undefined;
      const { firstDevice, liveDevices: activeDevices } = await deviceSummary(tx, subscription.id);
      const device = issued ?? firstDevice;
      if (device?.revokedAt) throw subscriptionEnded("canceled");
      const shownDevices = await devicesShown(tx, subscription.id, firstDevice, provesBuyer);
      return { subscription, device, activeDevices, shownDevices, mayClaimSlot: provesBuyer };
    },
  );
  services.mail.wake();
  if ("ended" in verification) {
    await refuseReversed(services.db, verification.ended);
    throw subscriptionEnded(endedStatusOf(verification.ended));
  }
  return answer(services, verification);
}

/** A refunded or disputed order is answered as such, with the day its payment went back. */
async function refuseReversed(executor: Executor, subscription: Subscription): Promise<void> {
  if (subscription.status !== "refunded" && subscription.status !== "disputed") return;
  const at = (await reversalDates(executor, [subscription.id])).get(subscription.id);
  throw new PaymentReversed(subscription.status, at ?? subscription.updatedAt);
}

/**
 * Whether the caller may claim another device slot on this session: it is the browser that paid
 * (its buyer cookie hashes to the one recorded at checkout), or the customer signed in with the
 * address the subscription was bought with (decision 067). Sessions from before buyer cookies
 * have no hash and pass only a signed-in owner.
 */
function mayAddDevice(
  session: CheckoutSession,
  subscription: Subscription | null,
  caller: VerifyCaller,
): boolean {
  const owner = (subscription?.customerEmail ?? session.customerEmail)?.toLowerCase();
  if (caller.customerEmail && owner === caller.customerEmail.toLowerCase()) return true;
  if (!caller.buyerToken || !session.buyerTokenHash) return false;
  const presented = Buffer.from(hashToken(caller.buyerToken));
  const recorded = Buffer.from(session.buyerTokenHash);
  return presented.length === recorded.length && crypto.timingSafeEqual(presented, recorded);
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

/**
 * A Stripe session whose webhook has not arrived yet: ask Stripe, and record the payment if it is
 * paid (at the catalogue price, else it needs review). Stripe is asked about one session at most
 * once per few seconds, however often the page polls.
 */
async function confirmWithProvider(
  services: BillingServices,
  session: CheckoutSession,
  now: Date,
): Promise<StripeReferences> {
  if (session.status === "amount_mismatch") throw paymentNeedsReview();
  if (session.provider !== "stripe" || !services.config.STRIPE_SECRET_KEY) throw paymentNotCompleted();
  const recentlyAsked = await consumeRateLimit(services.db, `stripe-session-check:${session.id}`, {
    ...VERIFY_LIMITS.stripeCheck,
    now: now.getTime(),
  });
  if (!recentlyAsked.allowed) throw paymentNotCompleted();
  let state;
  try {
    state = sessionState(await (await stripeClient(services.config)).checkout.sessions.retrieve(session.id));
  } catch (error) {
    services.logger.error(
      { err: error, sessionId: session.id },
      "stripe: retrieving a checkout session failed",
    );
    throw providerUnavailable();
  }
  if (!state.paid) throw paymentNotCompleted();
  const status = await recordPayment(services.db, services.logger, session, receivedPayment(state), now);
  if (status === "amount_mismatch") throw paymentNeedsReview();
  return { stripeCustomerId: state.customerId, stripeSubscriptionId: state.subscriptionId };
}

async function answer(
  services: BillingServices,
  { subscription, device, activeDevices, shownDevices, mayClaimSlot }: Verification,
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
    configSlot: device?.slot ?? null,
    devices: await configLinksOf(services, shownDevices),
    mayClaimSlot,
    roomForDevice,
    message: device
      ? `Your config for device ${device.slot} is ready.`
      : "Your payment is confirmed; your configuration is being prepared.",
  };
}
