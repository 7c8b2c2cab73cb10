import type Stripe from "stripe";
import { paymentEvents } from "#server/db/schema/index.ts";
import { invalidInput, notFound } from "#server/domain/errors.ts";
import type { BillingServices } from "./fulfil.ts";
import { disputedCharge } from "./reversals.ts";
import { stripeClient } from "./stripe-provider.ts";
import { applyEvent } from "./webhook-events.ts";
import { checkEventShape } from "./webhook-shapes.ts";

export { WEBHOOK_EVENTS } from "./webhook-events.ts";

export interface WebhookOutcome {
  received: true;
  duplicate: boolean;
  type: string;
  /** A signed event whose shape the webhook cannot read (webhook-shapes.ts): nothing was applied. */
  ignored?: true;
}

/**
 * Whether a `Stripe-Signature` header has the shape Stripe sends (`t=<unix time>,v1=<hex>`, more
 * signatures optional): checked before the body is read, so an unsigned stranger's body is never.
 */
export function isStripeSignatureShaped(header: string | null | undefined): boolean {
  return (
    typeof header === "string" &&
    header.length <= 1024 &&
    /^t=\d{1,12}(?:,v\d=[0-9a-f]{64})+$/.test(header) &&
    header.includes(",v1=")
  );
}

/**
 * Verifies a Stripe webhook on its raw body, then handles it exactly once: the event id is
 * recorded in the same transaction as its effects, so a replay (or a concurrent retry) finds
 * it and changes nothing, and a failure leaves nothing recorded so Stripe's retry runs it again.
 */
export async function handleStripeWebhook(
  services: BillingServices,
  rawBody: string,
  signature: string | null,
): Promise<WebhookOutcome> {
  const secret = services.config.STRIPE_WEBHOOK_SECRET;
  if (!services.config.STRIPE_SECRET_KEY || !secret) {
    throw notFound("Stripe webhooks are not enabled on this server.");
  }
  if (!signature || !isStripeSignatureShaped(signature))
    throw invalidInput("The Stripe-Signature header is missing or malformed.");
  let signed: Stripe.Event;
  try {
    signed = (await stripeClient(services.config)).webhooks.constructEvent(rawBody, signature, secret);
  } catch {
    throw invalidInput("The webhook signature does not match.");
  }
  // Signed but not shaped as the webhook reads it: acknowledged (a retry would bring the same
  // bytes), changes nothing, and logged for the operator.
  const shape = checkEventShape(signed);
  if (!shape.ok) {
    const { id, type } = signed as { id?: unknown; type?: unknown };
    services.logger.error(
      {
        eventId: typeof id === "string" ? id : null,
        type: typeof type === "string" ? type : null,
        problem: shape.problem,
      },
      "stripe webhook with an unexpected shape: acknowledged, not applied",
    );
    return {
      received: true,
      duplicate: false,
      type: typeof type === "string" ? type : "unknown",
      ignored: true,
    };
  }
  const event = shape.event;
  // Asked of Stripe before the transaction opens: no network call holds a transaction open.
  const disputed =
    event.type === "charge.dispute.created" ? await disputedCharge(services, event.data.object) : undefined;
  const handled = await services.db.transaction(async (tx) => {
    const [fresh] = await tx
      .insert(paymentEvents)
      .values({ id: event.id, type: event.type })
      .onConflictDoNothing({ target: paymentEvents.id })
      .returning({ id: paymentEvents.id });
    if (!fresh) return false;
    await applyEvent(tx, services, event, disputed);
    return true;
  });
  services.mail.wake();
  services.logger.info({ eventId: event.id, type: event.type, duplicate: !handled }, "stripe webhook");
  return { received: true, duplicate: !handled, type: event.type };
}
