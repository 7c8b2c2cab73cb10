import type Stripe from "stripe";
import type { Config } from "#server/config.ts";
import type { Plan } from "#core/plans.ts";
import { stripeClient } from "./stripe-provider.ts";

/** The plan id a Stripe subscription carries in its metadata (set at checkout and by `changeStripePlan`). */
export function stripePlanIdOf(remote: { metadata?: Stripe.Metadata | null }): string | null {
  const planId = remote.metadata?.planId;
  return typeof planId === "string" && planId ? planId : null;
}

/**
 * Moves a Stripe subscription's one item to the plan's price with Stripe's proration, as of
 * `prorationDate` (the moment the customer was quoted, so Stripe charges what they saw). Prices
 * are created inline from the catalogue on the item's own product, as checkout creates them.
 * The stored plan changes only when Stripe's `customer.subscription.updated` arrives.
 */
export async function changeStripePlan(
  config: Config,
  stripeSubscriptionId: string,
  plan: Plan,
  prorationDate: Date,
): Promise<void> {
  const stripe = await stripeClient(config);
  const remote = await stripe.subscriptions.retrieve(stripeSubscriptionId);
  const item = remote.items.data[0];
  if (!item) throw new Error(`Stripe subscription ${stripeSubscriptionId} has no item`);
  const product = typeof item.price.product === "string" ? item.price.product : item.price.product.id;
  await stripe.subscriptions.update(
    stripeSubscriptionId,
    {
      items: [
        {
          id: item.id,
          price_data: {
            currency: "usd",
            product,
            unit_amount: plan.priceCents,
            recurring: { interval: plan.interval ?? "month" },
          },
        },
      ],
      proration_behavior: "create_prorations",
      proration_date: Math.floor(prorationDate.getTime() / 1000),
      metadata: { planId: plan.id },
    },
    // A retried change (the SDK's own retries, or a double click) is one change at Stripe.
    { idempotencyKey: `plan-change-${stripeSubscriptionId}-${plan.id}-${prorationDate.getTime()}` },
  );
}
