import { eq, min } from "drizzle-orm";
import { formatLongDate } from "#core/format.ts";
import type { Config } from "#server/config.ts";
import type { Executor } from "#server/db/client.ts";
import { devices, type CheckoutSession, type Subscription } from "#server/db/schema/index.ts";
import type { StaffActor } from "#server/domain/ops/audit.ts";
import { recordCustomerAction } from "#server/domain/ops/audit.ts";
import { DomainError } from "#server/domain/errors.ts";
import { isUsable } from "#server/domain/vpn/usable.ts";
import { DAY_MS } from "#server/domain/time.ts";
import { isDemoPurchase } from "./demo-purchases.ts";
import type { BillingServices } from "./fulfil.ts";
import { refundableCharges } from "./ledger.ts";
import { alreadyRefunded, refundCharges } from "./refund-charges.ts";
import { findSubscription } from "./self-service.ts";

// The 7-day guarantee in one click (docs/product.md §3.3, decision 136): before any config of a
// purchase is activated, and within 7 days of buying it, the customer refunds it themselves from
// /account. Outside those rules the refund is support's to decide (the 72-hour troubleshooting
// rule after activation): the page says why and links the contact form. Callers have already
// checked that the subscription is the signed-in customer's.

export const GUARANTEE_DAYS = 7;

/** What the rule reads of a purchase. */
export interface GuaranteeState {
  status: Subscription["status"];
  expiresAt: Date;
  /** When it was bought: the window runs from here. */
  boughtAt: Date;
  /** Bought with the demo's test card on a store that now takes real money (no money to give back). */
  demoPurchase: boolean;
  /** The first activation of any of its configs (shown QR, page download, handshake), or null. */
  activatedAt: Date | null;
  /** What is still refundable of it, in cents. */
  refundableCents: number;
  currency: string;
}

/** The end of a purchase's guarantee window. */
export const guaranteeEnds = (boughtAt: Date) => new Date(boughtAt.getTime() + GUARANTEE_DAYS * DAY_MS);

/** Why the customer cannot refund this purchase themselves now, or null when they can. */
export function guaranteeRefusal(state: GuaranteeState, now: Date): string | null {
  const early = refusalWithoutReading(state, now);
  if (early) return early;
  if (state.activatedAt)
    return `A config of this plan was first used on ${formatLongDate(state.activatedAt)}, so the 7-day guarantee no longer applies by itself: after activation a refund is offered when no working Nigerian connection can be given after troubleshooting within 72 hours. Contact support and we will look into it.`;
  if (!isUsable(state, now)) return "This plan has ended, so it cannot be refunded here.";
  if (state.refundableCents <= 0) return "Nothing of this purchase is left to refund.";
  return null;
}

/** The refusals that need nothing beyond the subscription itself (no query). */
function refusalWithoutReading(
  state: Pick<GuaranteeState, "status" | "demoPurchase" | "boughtAt">,
  now: Date,
): string | null {
  if (state.status === "refunded") return "This purchase has been refunded already.";
  if (state.status === "disputed")
    return "This payment is disputed with your bank, so it cannot also be refunded here.";
  if (state.demoPurchase)
    return "This plan was bought with the demo's test card: no real money was paid, so there is nothing to refund.";
  const ends = guaranteeEnds(state.boughtAt);
  if (now >= ends) return `The 7-day guarantee of this purchase ended on ${formatLongDate(ends)}.`;
  return null;
}

/** The rule's state of one subscription, read now. */
export async function guaranteeStateOf(
  executor: Executor,
  config: Pick<Config, "NAIJALINK_MODE" | "STRIPE_SECRET_KEY">,
  subscription: Subscription,
  provider: CheckoutSession["provider"],
): Promise<GuaranteeState> {
  const [activation] = await executor
    .select({ at: min(devices.activatedAt) })
    .from(devices)
    .where(eq(devices.subscriptionId, subscription.id));
  const refundable = await refundableCharges(executor, subscription.id);
  return {
    status: subscription.status,
    expiresAt: subscription.expiresAt,
    boughtAt: subscription.createdAt,
    demoPurchase: isDemoPurchase(provider, config),
    activatedAt: activation?.at ?? null,
    refundableCents: refundable.reduce((sum, entry) => sum + entry.refundableCents, 0),
    currency: refundable[0]?.charge.currency ?? "usd",
  };
}

/** What /account shows of the guarantee: the refund on offer, or why not. */
export type GuaranteeOffer =
  | { offered: true; amountCents: number; currency: string; until: string }
  | { offered: false; reason: string };

/**
 * The offer /account shows for one purchase: the cheap rules first (most of a long-standing
 * customer's purchases are past their window), the activation and ledger read only when needed.
 */
export async function guaranteeOfferOf(
  executor: Executor,
  config: Pick<Config, "NAIJALINK_MODE" | "STRIPE_SECRET_KEY">,
  subscription: Subscription,
  provider: CheckoutSession["provider"],
  now: Date,
): Promise<GuaranteeOffer> {
  const early = refusalWithoutReading(
    {
      status: subscription.status,
      demoPurchase: isDemoPurchase(provider, config),
      boughtAt: subscription.createdAt,
    },
    now,
  );
  if (early) return { offered: false, reason: early };
  return guaranteeOffer(await guaranteeStateOf(executor, config, subscription, provider), now);
}

export function guaranteeOffer(state: GuaranteeState, now: Date): GuaranteeOffer {
  const reason = guaranteeRefusal(state, now);
  if (reason) return { offered: false, reason };
  return {
    offered: true,
    amountCents: state.refundableCents,
    currency: state.currency,
    until: guaranteeEnds(state.boughtAt).toISOString(),
  };
}

export const guaranteeRefused = (reason: string) =>
  new DomainError("conflict", "Refund not available", reason);

/**
 * Refunds everything still refundable of the customer's purchase under the guarantee: through
 * the provider (Stripe in live mode, the built-in checkout's record in demo), recorded once on the
 * ledger, the plan ended (devices revoked, the refund e-mailed), and the audit log naming the
 * customer as who started it. Outside the rule: 409, nothing changed.
 */
export async function refundUnderGuarantee(
  services: BillingServices,
  customer: StaffActor,
  subscriptionId: string,
  now = new Date(),
): Promise<Subscription> {
  const { subscription, provider } = await findSubscription(services.db, subscriptionId);
  return refundCharges(
    services,
    subscription,
    provider,
    undefined,
    {
      check: async (executor, current, at) => {
        const reason = guaranteeRefusal(
          await guaranteeStateOf(executor, services.config, current, provider),
          at,
        );
        if (reason) throw guaranteeRefused(reason);
      },
      recheck: (current) => {
        if (current.status === "refunded") throw alreadyRefunded();
        if (current.status === "disputed") throw guaranteeRefused("This payment is disputed with your bank.");
      },
      audit: (tx, details) =>
        recordCustomerAction(
          tx,
          customer,
          {
            action: "subscription.refund",
            targetType: "subscription",
            targetId: subscription.id,
            reason: "7-day guarantee, refunded by the customer from their account",
            details: { ...details, guarantee: true },
          },
          now,
        ),
      reason: "7-day guarantee",
      idempotencyKey: (chargeId, cents) => `guarantee-refund-${chargeId}-${cents}`,
    },
    now,
  );
}
