import type { PlanType } from "#app/lib/plans.ts";
import { and, eq, isNull, sql } from "drizzle-orm";
import { batcherPerOwner, createBatcher } from "#server/db/batching.ts";
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
  fulfilTogether,
  issueDeviceWithEmail,
  liveDeviceCount,
  type BillingServices,
  type Fulfilment,
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
  const {
    session,
    answer: known,
    fulfilment: justFulfilled,
  } = await readSession(services, input.sessionId, now);
  if (known && !input.newDevice) return known;
  if (!session) throw sessionNotFound();
  if (justFulfilled && !input.newDevice && justFulfilled.created && justFulfilled.firstDevice) {
    return answer(services, {
      subscription: justFulfilled.subscription,
      device: justFulfilled.firstDevice,
      activeDevices: 1,
    });
  }
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
  const fulfilment = justFulfilled ?? (await fulfil(services, session.id, references));
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
 * answer itself, read without a transaction or row locks: paid session, live subscription,
 * live slot 1. A paid session without a subscription yet (the first verification, when no
 * webhook or checkout got there first) is fulfilled in the same batch.
 */
async function readSession(
  services: BillingServices,
  sessionId: string,
  now: Date,
): Promise<{ session?: CheckoutSession; answer?: VerifiedPayment; fulfilment?: Fulfilment }> {
  const read = await sessionReader(services)(sessionId);
  if (!read) return {};
  const { row, fulfilment } = read;
  const { session, subscription, device, activeDevices } = row;
  if (
    session.status !== "paid" ||
    !subscription ||
    !device ||
    !USABLE.includes(subscription.status) ||
    subscription.expiresAt <= now
  )
    return { session, fulfilment };
  return { session, answer: answer(services, { subscription, device, activeDevices }) };
}

interface SessionRow {
  session: CheckoutSession;
  subscription: Subscription | null;
  device: Device | null;
  activeDevices: number;
}

/**
 * Verifications that arrive together share one read and, for the paid sessions nobody has
 * fulfilled yet, one fulfilment transaction (see `createBatcher`).
 */
const sessionReader = batcherPerOwner((services: BillingServices) => {
  const readSessionRows = sessionRowsQuery(services);
  return createBatcher<string, { row: SessionRow; fulfilment?: Fulfilment } | undefined>({
    run: async (sessionIds) => {
      const rows = await readSessionRows.execute({ sessionIds: [...new Set(sessionIds)] });
      const unfulfilled = rows.filter((row) => row.session.status === "paid" && !row.subscription);
      const fulfilments = await fulfilTogether(
        services,
        unfulfilled.map((row) => ({ checkoutSessionId: row.session.id, paidSession: row.session })),
      );
      const results = new Map<string, PromiseSettledResult<{ row: SessionRow; fulfilment?: Fulfilment }>>(
        rows.map((row) => [row.session.id, { status: "fulfilled", value: { row } }]),
      );
      unfulfilled.forEach((row, index) => {
        const outcome = fulfilments[index]!;
        results.set(
          row.session.id,
          outcome.status === "fulfilled"
            ? { status: "fulfilled", value: { row, fulfilment: outcome.value } }
            : outcome,
        );
      });
      return sessionIds.map((id) => results.get(id) ?? { status: "fulfilled", value: undefined });
    },
    maxBatchSize: 200,
    // One at a time, as for fulfilment (see there).
    maxConcurrentBatches: 1,
  });
});

/**
 * Built once per database and run with the batch's ids as one array parameter: the SQL text is
 * the same whatever the batch size, so the database keeps one prepared statement for it
 * (decision 057), and drizzle does not rebuild this wide select for every batch.
 */
function sessionRowsQuery(services: BillingServices) {
  return services.db
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
    .where(sql`${checkoutSessions.id} = any(${sql.placeholder("sessionIds")}::text[])`)
    .prepare("read_checkout_sessions");
}
