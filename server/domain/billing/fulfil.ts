import { and, count, eq, inArray, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { findPlan } from "#app/lib/plans.ts";
import type { Transaction } from "#server/db/client.ts";
import {
  checkoutSessions,
  devices,
  outboxMessages,
  subscriptions,
  vpnServers,
  type CheckoutSession,
  type Device,
  type Subscription,
  type VpnServer,
} from "#server/db/schema/index.ts";
import {
  AddressPoolExhausted,
  downloadTokenOf,
  issueDevice,
  insertPreparedDevices,
  prepareFirstDevices,
  NoVpnServerAvailable,
  type IssuedDevice,
} from "#server/domain/vpn/devices.ts";
import type { AppServices } from "#server/services.ts";
import { configEmail, queueConfigEmail } from "#server/domain/vpn/config-email.ts";
import { outboxRows } from "#server/domain/mail/outbox.ts";
import { batcherPerOwner, createBatcher } from "#server/db/batching.ts";

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

export interface FulfilmentRequest {
  checkoutSessionId: string;
  references?: StripeReferences;
  /**
   * The session as the caller has just read it, already paid (verify-payment's batch): saves
   * reading it again. Paid is final, and the subscription insert still decides every race.
   */
  paidSession?: CheckoutSession;
}

/**
 * Turns paid checkout sessions into subscriptions, each with its first device and config
 * e-mail, exactly once. The unique `subscriptions.checkout_session_id` decides races: a
 * concurrent transaction's insert of the same session waits for the winner's commit, then does
 * nothing and reads the winner's row. Several sessions take one statement per step (batched
 * fulfilment, decision 056), in session-id order so concurrent batches lock rows in one order.
 *
 * Answers in the input order: undefined when the session is unknown or not paid. A session
 * named more than once is fulfilled once, and only its first request reports `created`.
 */
export async function fulfilManyInTransaction(
  tx: Transaction,
  services: BillingServices,
  requests: FulfilmentRequest[],
): Promise<(Fulfilment | undefined)[]> {
  const referencesBySession = new Map<string, StripeReferences>();
  for (const { checkoutSessionId, references = {} } of requests) {
    const known = referencesBySession.get(checkoutSessionId) ?? {};
    referencesBySession.set(checkoutSessionId, {
      stripeCustomerId: known.stripeCustomerId ?? references.stripeCustomerId ?? null,
      stripeSubscriptionId: known.stripeSubscriptionId ?? references.stripeSubscriptionId ?? null,
    });
  }
  const known = requests.map((request) => request.paidSession);
  const sessions = known.every((session) => session?.status === "paid")
    ? (known as CheckoutSession[])
    : await tx
        .select()
        .from(checkoutSessions)
        .where(inArray(checkoutSessions.id, [...referencesBySession.keys()]));
  const paid = [...new Map(sessions.map((session) => [session.id, session])).values()]
    .filter((session) => session.status === "paid")
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const inserted = await insertSubscriptions(tx, paid, referencesBySession);
  const insertedBySession = new Map(inserted.map((row) => [row.checkoutSessionId!, row]));
  const freshSubscriptions = paid.flatMap((session) => insertedBySession.get(session.id) ?? []);
  const firstDevices = await issueFirstDevicesWithEmail(tx, services, freshSubscriptions);

  const alreadyFulfilled = paid.filter((session) => !insertedBySession.has(session.id));
  const existingBySession = new Map(
    (await existingSubscriptions(tx, alreadyFulfilled, referencesBySession)).map((row) => [
      row.checkoutSessionId!,
      row,
    ]),
  );

  const paidIds = new Set(paid.map((session) => session.id));
  const reported = new Set<string>();
  return requests.map(({ checkoutSessionId }) => {
    if (!paidIds.has(checkoutSessionId)) return undefined;
    const fresh = insertedBySession.get(checkoutSessionId);
    if (fresh && !reported.has(checkoutSessionId)) {
      reported.add(checkoutSessionId);
      return { subscription: fresh, created: true, firstDevice: firstDevices.get(fresh.id)?.device };
    }
    const subscription = fresh ?? existingBySession.get(checkoutSessionId);
    if (!subscription) throw new Error(`Subscription of checkout session ${checkoutSessionId} vanished`);
    return { subscription, created: false };
  });
}

/** One fulfilment inside the caller's transaction (the Stripe webhook's). */
export async function fulfilInTransaction(
  tx: Transaction,
  services: BillingServices,
  checkoutSessionId: string,
  references: StripeReferences = {},
): Promise<Fulfilment | undefined> {
  const [result] = await fulfilManyInTransaction(tx, services, [{ checkoutSessionId, references }]);
  return result;
}

/**
 * One statement: insert the subscriptions and link their sessions to them; sessions whose
 * subscription already exists get nothing (and are absent from the answer).
 */
async function insertSubscriptions(
  tx: Transaction,
  paidSessions: CheckoutSession[],
  referencesBySession: Map<string, StripeReferences>,
): Promise<Subscription[]> {
  if (paidSessions.length === 0) return [];
  const insertion = tx.$with("inserted").as(
    tx
      .insert(subscriptions)
      .values(
        paidSessions.map((session) => {
          const plan = findPlan(session.planId);
          if (!plan) throw new Error(`Checkout session ${session.id} names an unknown plan`);
          const references = referencesBySession.get(session.id) ?? {};
          return {
            planId: plan.id,
            planType: plan.planType,
            deviceLimit: plan.deviceLimit,
            customerEmail: session.customerEmail,
            expiresAt: new Date((session.paidAt ?? new Date()).getTime() + plan.accessDays * DAY_MS),
            checkoutSessionId: session.id,
            stripeCustomerId: references.stripeCustomerId ?? null,
            stripeSubscriptionId: references.stripeSubscriptionId ?? null,
          };
        }),
      )
      .onConflictDoNothing({ target: subscriptions.checkoutSessionId })
      .returning(),
  );
  return (await tx
    .with(insertion)
    .update(checkoutSessions)
    .set({ subscriptionId: sql`${insertion.id}` })
    .from(insertion)
    .where(eq(checkoutSessions.id, insertion.checkoutSessionId))
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
}

/** The subscriptions of already fulfilled sessions, filling in Stripe references they lack. */
async function existingSubscriptions(
  tx: Transaction,
  sessions: CheckoutSession[],
  referencesBySession: Map<string, StripeReferences>,
): Promise<Subscription[]> {
  if (sessions.length === 0) return [];
  const rows = await tx
    .select()
    .from(subscriptions)
    .where(
      inArray(
        subscriptions.checkoutSessionId,
        sessions.map((session) => session.id),
      ),
    );
  return Promise.all(
    rows.map(async (existing) => {
      const references = referencesBySession.get(existing.checkoutSessionId!) ?? {};
      if (
        !(references.stripeSubscriptionId && !existing.stripeSubscriptionId) &&
        !(references.stripeCustomerId && !existing.stripeCustomerId)
      )
        return existing;
      const [updated] = await tx
        .update(subscriptions)
        .set({
          stripeSubscriptionId: existing.stripeSubscriptionId ?? references.stripeSubscriptionId ?? null,
          stripeCustomerId: existing.stripeCustomerId ?? references.stripeCustomerId ?? null,
          updatedAt: new Date(),
        })
        .where(eq(subscriptions.id, existing.id))
        .returning();
      return updated!;
    }),
  );
}

/**
 * Slot 1 and its config e-mail for subscriptions inserted in this transaction (nobody else
 * can see them or give them a device, so no lock is taken on them): one allocation, then the
 * devices and their e-mails in one statement. Those the bulk allocation could not place (the
 * chosen server's pool is full) are issued one by one: on the least-loaded server that still has
 * room (decision 045), or left pending (Configuration Pending, reason logged) when none has.
 */
async function issueFirstDevicesWithEmail(
  tx: Transaction,
  services: BillingServices,
  freshSubscriptions: Subscription[],
): Promise<Map<string, IssuedDevice>> {
  const issued = new Map<string, IssuedDevice>();
  if (freshSubscriptions.length === 0) return issued;
  const prepared = await prepareFirstDevices(tx, services.sealer, freshSubscriptions);
  const placed = freshSubscriptions.flatMap((subscription, index) =>
    prepared[index] ? [{ subscription, device: prepared[index] }] : [],
  );
  const emails = outboxRows(
    services.sealer,
    placed.flatMap(({ subscription, device }) => {
      const email = isEmail(subscription.customerEmail)
        ? configEmail(services, { ...device, device: device.values }, subscription)
        : null;
      return email ? [email] : [];
    }),
  );
  const inserted = await insertPreparedDevices(
    tx,
    placed.map(({ device }) => device),
    emails.length > 0
      ? (tx) =>
          tx
            .$with("queued_emails")
            .as(tx.insert(outboxMessages).values(emails).returning({ id: outboxMessages.id }))
      : undefined,
  );
  for (const entry of inserted) issued.set(entry.device.subscriptionId, entry);

  const unplaced = freshSubscriptions.filter(
    (subscription, index) => !prepared[index] && subscription.deviceLimit >= 1,
  );
  for (const subscription of unplaced) {
    const device = await issueOrPend(tx, services, subscription, () =>
      issueDeviceWithEmail(tx, services, subscription, { newSubscription: true }),
    );
    if (device) issued.set(subscription.id, device);
  }
  return issued;
}

/**
 * Fulfils a checkout session (verify-payment, the built-in checkout). Calls that arrive while
 * a fulfilment is running are grouped into the next transaction (group commit), so under load
 * buyers share transactions instead of queueing for the database one by one. The config e-mail
 * goes out after the commit.
 */
export function fulfil(
  services: BillingServices,
  checkoutSessionId: string,
  references: StripeReferences = {},
): Promise<Fulfilment | undefined> {
  return fulfilmentBatcher(services)({ checkoutSessionId, references });
}

const FULFILMENT_BATCH_SIZE = 100;

const fulfilmentBatcher = batcherPerOwner((services: BillingServices) =>
  createBatcher<FulfilmentRequest, Fulfilment | undefined>({
    run: (requests) => fulfilTogether(services, requests),
    maxBatchSize: FULFILMENT_BATCH_SIZE,
    // One at a time: PGlite runs one transaction at a time anyway, and on PostgreSQL batches
    // running side by side queue for the VPN server's row lock — measured (decision 056), four
    // at once doubled the latency of two, which doubled that of one.
    maxConcurrentBatches: 1,
  }),
);

/**
 * Fulfils the sessions in one transaction; if that fails, each alone, so one bad session fails
 * only itself. The config e-mails go out after the commit.
 */
export async function fulfilTogether(
  services: BillingServices,
  requests: FulfilmentRequest[],
): Promise<PromiseSettledResult<Fulfilment | undefined>[]> {
  if (requests.length === 0) return [];
  if (requests.length === 1) return Promise.allSettled([fulfilAlone(services, requests[0]!)]);
  try {
    const results = await services.db.transaction((tx) => fulfilManyInTransaction(tx, services, requests));
    if (results.some((result) => result?.created)) services.mail.wake();
    return results.map((value) => ({ status: "fulfilled", value }));
  } catch (error) {
    services.logger.warn(
      { requests: requests.length, reason: databaseErrorSummary(error) },
      "batched fulfilment failed; fulfilling one by one",
    );
    return Promise.allSettled(requests.map((request) => fulfilAlone(services, request)));
  }
}

async function fulfilAlone(services: BillingServices, request: FulfilmentRequest) {
  const [result] = await services.db.transaction((tx) => fulfilManyInTransaction(tx, services, [request]));
  if (result?.created) services.mail.wake();
  return result;
}

/** What went wrong, without the statement's parameters (they hold sealed keys and token hashes). */
function databaseErrorSummary(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message.split("\n")[0]! : String(cause);
}

const emailSchema = z.email();
const isEmail = (value: string | null): value is string => !!value && emailSchema.safeParse(value).success;

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
): Promise<IssuedDevice | undefined> {
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
