import { and, count, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { findPlan } from "#app/lib/plans.ts";
import type { Transaction } from "#server/db/client.ts";
import {
  checkoutSessions,
  devices,
  subscriptions,
  vpnServers,
  type Device,
  type Subscription,
  type VpnServer,
} from "#server/db/schema/index.ts";
import {
  AddressPoolExhausted,
  downloadTokenOf,
  issueDevice,
  NoVpnServerAvailable,
  type IssuedDevice,
} from "#server/domain/vpn/devices.ts";
import type { AppServices } from "#server/services.ts";
import { queueConfigEmail } from "#server/domain/vpn/config-email.ts";

export type BillingServices = Pick<AppServices, "config" | "db" | "logger" | "sealer" | "mail">;

const DAY_MS = 86_400_000;

export interface StripeReferences {
  stripeCustomerId?: string | null;
  stripeSubscriptionId?: string | null;
}

export interface Fulfilment {
  subscription: Subscription;
  /** Whether this call created the subscription (false on every repeat). */
  created: boolean;
  /** Slot 1, when this call created it. */
  firstDevice?: Device;
}

/**
 * Turns a paid checkout session into a subscription with its first device, exactly once.
 * The unique `subscriptions.checkout_session_id` decides the race: a concurrent call's insert
 * waits for the winner's commit, then does nothing and reads the winner's row.
 * Returns undefined when the session is unknown or not paid.
 */
export async function fulfilInTransaction(
  tx: Transaction,
  services: BillingServices,
  checkoutSessionId: string,
  references: StripeReferences = {},
): Promise<Fulfilment | undefined> {
  const [session] = await tx
    .select()
    .from(checkoutSessions)
    .where(eq(checkoutSessions.id, checkoutSessionId));
  if (!session || session.status !== "paid") return undefined;
  const plan = findPlan(session.planId);
  if (!plan) throw new Error(`Checkout session ${session.id} names an unknown plan`);

  // One statement: insert the subscription and link the session to it (nothing when the
  // subscription already exists).
  const insertion = tx.$with("inserted").as(
    tx
      .insert(subscriptions)
      .values({
        planId: plan.id,
        planType: plan.planType,
        deviceLimit: plan.deviceLimit,
        customerEmail: session.customerEmail,
        expiresAt: new Date((session.paidAt ?? new Date()).getTime() + plan.accessDays * DAY_MS),
        checkoutSessionId: session.id,
        stripeCustomerId: references.stripeCustomerId ?? null,
        stripeSubscriptionId: references.stripeSubscriptionId ?? null,
      })
      .onConflictDoNothing({ target: subscriptions.checkoutSessionId })
      .returning(),
  );
  const [inserted] = (await tx
    .with(insertion)
    .update(checkoutSessions)
    .set({ subscriptionId: sql`${insertion.id}` })
    .from(insertion)
    .where(eq(checkoutSessions.id, session.id))
    .returning({
      id: insertion.id,
      planId: insertion.planId,
      planType: insertion.planType,
      deviceLimit: insertion.deviceLimit,
      status: insertion.status,
      customerEmail: insertion.customerEmail,
      expiresAt: insertion.expiresAt,
      cancelAtPeriodEnd: insertion.cancelAtPeriodEnd,
      checkoutSessionId: insertion.checkoutSessionId,
      stripeCustomerId: insertion.stripeCustomerId,
      stripeSubscriptionId: insertion.stripeSubscriptionId,
      createdAt: insertion.createdAt,
      updatedAt: insertion.updatedAt,
    })) satisfies Subscription[];

  if (inserted) {
    // The subscription is this transaction's own row: nobody else can see it or give it a
    // device, so slot 1 is issued without locking it again or looking for one.
    const first = await issueOrPend(tx, services, inserted, () =>
      issueDeviceWithEmail(tx, services, inserted, { newSubscription: true }),
    );
    return { subscription: inserted, created: true, firstDevice: first?.device };
  }

  let [existing] = await tx
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.checkoutSessionId, session.id));
  if (!existing) throw new Error(`Subscription of checkout session ${session.id} vanished`);
  if (
    (references.stripeSubscriptionId && !existing.stripeSubscriptionId) ||
    (references.stripeCustomerId && !existing.stripeCustomerId)
  ) {
    [existing] = await tx
      .update(subscriptions)
      .set({
        stripeSubscriptionId: existing.stripeSubscriptionId ?? references.stripeSubscriptionId ?? null,
        stripeCustomerId: existing.stripeCustomerId ?? references.stripeCustomerId ?? null,
        updatedAt: new Date(),
      })
      .where(eq(subscriptions.id, existing.id))
      .returning();
  }
  return { subscription: existing!, created: false };
}

/** One fulfilment in its own transaction; the config e-mail goes out after the commit. */
export async function fulfil(
  services: BillingServices,
  checkoutSessionId: string,
  references: StripeReferences = {},
): Promise<Fulfilment | undefined> {
  const result = await services.db.transaction((tx) =>
    fulfilInTransaction(tx, services, checkoutSessionId, references),
  );
  if (result?.created) services.mail.wake();
  return result;
}

const isEmail = (value: string | null): value is string => !!value && z.email().safeParse(value).success;

/** Issues a device for the subscription and queues its config e-mail, in the caller's transaction. */
export async function issueDeviceWithEmail(
  tx: Transaction,
  services: BillingServices,
  subscription: Subscription,
  options: { newSubscription?: boolean } = {},
): Promise<IssuedDevice> {
  const issued = await issueDevice(tx, services.sealer, subscription, options);
  if (isEmail(subscription.customerEmail)) {
    await queueConfigEmail(tx, services, issued, subscription);
  }
  return issued;
}

/**
 * With no VPN server (or a full pool) the subscription stays without a device: the success
 * page shows Configuration Pending and the next verification tries again. `issueDevice` writes
 * nothing before it throws those, so no savepoint is needed to carry on with the transaction.
 */
async function issueOrPend(
  tx: Transaction,
  services: BillingServices,
  subscription: Subscription,
  issue: () => Promise<IssuedDevice>,
): Promise<{ device: Device; server: VpnServer } | undefined> {
  try {
    return await issue();
  } catch (error) {
    if (error instanceof NoVpnServerAvailable || error instanceof AddressPoolExhausted) {
      services.logger.error(
        { err: error, subscriptionId: subscription.id },
        "config pending: cannot issue a device",
      );
      return undefined;
    }
    throw error;
  }
}

/** Slot 1 of the subscription, issuing it when missing (see `issueOrPend`). */
export async function ensureFirstDevice(
  tx: Transaction,
  services: BillingServices,
  subscription: Subscription,
): Promise<{ device: Device; server: VpnServer } | undefined> {
  await tx
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(eq(subscriptions.id, subscription.id))
    .for("update");
  const existing = await firstDevice(tx, subscription.id);
  if (existing) return existing;
  return issueOrPend(tx, services, subscription, () => issueDeviceWithEmail(tx, services, subscription));
}

export async function firstDevice(
  tx: Transaction,
  subscriptionId: string,
): Promise<{ device: Device; server: VpnServer } | undefined> {
  const [row] = await tx
    .select({ device: devices, server: vpnServers })
    .from(devices)
    .innerJoin(vpnServers, eq(vpnServers.id, devices.vpnServerId))
    .where(and(eq(devices.subscriptionId, subscriptionId), eq(devices.slot, 1)));
  return row;
}

export async function liveDeviceCount(tx: Transaction, subscriptionId: string): Promise<number> {
  const [row] = await tx
    .select({ value: count() })
    .from(devices)
    .where(and(eq(devices.subscriptionId, subscriptionId), isNull(devices.revokedAt)));
  return Number(row?.value ?? 0);
}

export function downloadUrlFor(services: Pick<BillingServices, "config" | "sealer">, device: Device): string {
  return `${services.config.PUBLIC_URL}/api/configs/${downloadTokenOf(device, services.sealer)}`;
}
