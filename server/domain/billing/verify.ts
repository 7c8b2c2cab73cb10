import type { PlanType } from "#app/lib/plans.ts";
import { and, eq, isNull, sql } from "drizzle-orm";
import {
  checkoutSessions,
  devices,
  subscriptions,
  type CheckoutSession,
  type Device,
  type Subscription,
} from "#server/db/schema/index.ts";
import { DeviceLimitReached } from "#server/domain/vpn/devices.ts";
import { markCheckoutPaid } from "./checkout.ts";
import {
  deviceLimitReached,
  paymentNotCompleted,
  providerUnavailable,
  sessionNotFound,
  subscriptionEnded,
} from "./errors.ts";
import {
  downloadUrlFor,
  ensureFirstDevice,
  fulfil,
  issueDeviceWithEmail,
  liveDeviceCount,
  type BillingServices,
  type StripeReferences,
} from "./fulfil.ts";
import { sessionState, stripeClient } from "./stripe-provider.ts";

export interface VerifiedPayment {
  success: true;
  subscription: { planType: PlanType; deviceLimit: number; expiresAt: string; activeDevices: number };
  /** Null while no config could be issued yet (Configuration Pending). */
  downloadUrl: string | null;
  configSlot: number | null;
  message: string;
}

const USABLE: Subscription["status"][] = ["active", "past_due"];

/**
 * The success page's check: the session must be paid (asking Stripe when its webhook has
 * not arrived yet), fulfilment runs (idempotently), and the answer is slot 1 — or, with
 * `newDevice`, the next free slot.
 */
export async function verifyPayment(
  services: BillingServices,
  input: { sessionId: string; newDevice?: boolean },
  now = new Date(),
): Promise<VerifiedPayment> {
  const { session, answer: known } = await readSession(services, input.sessionId, now);
  if (known && !input.newDevice) return known;
  if (!session) throw sessionNotFound();
  let references: StripeReferences = {};
  if (session.status !== "paid") {
    if (session.provider !== "stripe" || !services.config.STRIPE_SECRET_KEY) throw paymentNotCompleted();
    let state;
    try {
      state = sessionState(await stripeClient(services.config).checkout.sessions.retrieve(session.id));
    } catch (error) {
      services.logger.error(
        { err: error, sessionId: session.id },
        "stripe: retrieving a checkout session failed",
      );
      throw providerUnavailable();
    }
    if (!state.paid) throw paymentNotCompleted();
    references = { stripeCustomerId: state.customerId, stripeSubscriptionId: state.subscriptionId };
    await markCheckoutPaid(services.db, session.id, {
      reference: state.paymentIntentId ?? state.subscriptionId,
      customerEmail: state.customerEmail,
    });
  }
  const fulfilment = await fulfil(services, session.id, references);
  if (!fulfilment) throw paymentNotCompleted();
  if (!input.newDevice && fulfilment.created && fulfilment.firstDevice) {
    return answer(services, {
      subscription: fulfilment.subscription,
      device: fulfilment.firstDevice,
      activeDevices: 1,
    });
  }

  const result = await services.db.transaction(async (tx) => {
    const subscription = fulfilment.subscription;
    const [current] = await tx.query.subscriptions.findMany({
      where: (table, { eq }) => eq(table.id, subscription.id),
    });
    if (!current || !USABLE.includes(current.status) || current.expiresAt <= now) {
      throw subscriptionEnded(
        current && current.expiresAt <= now && current.status === "active"
          ? "expired"
          : (current?.status ?? "gone"),
      );
    }
    let device;
    if (input.newDevice) {
      try {
        ({ device } = await issueDeviceWithEmail(tx, services, current));
      } catch (error) {
        if (error instanceof DeviceLimitReached) throw deviceLimitReached(current.deviceLimit);
        throw error;
      }
    } else {
      device = (await ensureFirstDevice(tx, services, current))?.device;
    }
    if (device?.revokedAt) throw subscriptionEnded("canceled");
    return { subscription: current, device, activeDevices: await liveDeviceCount(tx, current.id) };
  });
  if (input.newDevice) services.mail.wake();

  return answer(services, result);
}

function answer(
  services: BillingServices,
  {
    subscription,
    device,
    activeDevices,
  }: { subscription: Subscription; device: Device | undefined; activeDevices: number },
): VerifiedPayment {
  return {
    success: true,
    subscription: {
      planType: subscription.planType,
      deviceLimit: subscription.deviceLimit,
      expiresAt: subscription.expiresAt.toISOString(),
      activeDevices,
    },
    downloadUrl: device ? downloadUrlFor(services, device) : null,
    configSlot: device?.slot ?? null,
    message: device
      ? `Your config for device ${device.slot} is ready.`
      : "Your payment is confirmed; your configuration is being prepared.",
  };
}

/**
 * The session, and — the common case, the success page (re)loaded after fulfilment — the
 * answer itself, in one read without a transaction or row locks: paid session, live
 * subscription, live slot 1. A first verification uses the session row it reads.
 */
async function readSession(
  services: BillingServices,
  sessionId: string,
  now: Date,
): Promise<{ session?: CheckoutSession; answer?: VerifiedPayment }> {
  const [row] = await services.db
    .select({
      session: checkoutSessions,
      subscription: subscriptions,
      device: devices,
      activeDevices:
        sql<number>`(select count(*) from devices live where live.subscription_id = ${subscriptions.id} and live.revoked_at is null)`.mapWith(
          Number,
        ),
    })
    .from(checkoutSessions)
    .leftJoin(subscriptions, eq(subscriptions.id, checkoutSessions.subscriptionId))
    .leftJoin(
      devices,
      and(eq(devices.subscriptionId, subscriptions.id), eq(devices.slot, 1), isNull(devices.revokedAt)),
    )
    .where(eq(checkoutSessions.id, sessionId));
  if (!row) return {};
  const { session, subscription, device, activeDevices } = row;
  if (
    session.status !== "paid" ||
    !subscription ||
    !device ||
    !USABLE.includes(subscription.status) ||
    subscription.expiresAt <= now
  )
    return { session };
  return { session, answer: answer(services, { subscription, device, activeDevices }) };
}
