import { handleStripeWebhook } from "#server/domain/billing/webhook.ts";
import { handleApi, methodNotAllowed, postOnlyLoader } from "#server/http/api.ts";
import type { Route } from "./+types/webhooks-stripe";

export const loader = postOnlyLoader;

/**
 * The signature covers the exact bytes Stripe sent, so the body is read raw, never re-serialised.
 * The intake (server/http/intake.ts) checked the signature header's shape and the body's size
 * before a byte of it was read.
 */
export function action({ request, context, params }: Route.ActionArgs) {
  return handleApi({ request, context, params }, async () => {
    if (request.method !== "POST") throw methodNotAllowed(["POST"]);
    return handleStripeWebhook(
      context.services,
      await request.text(),
      request.headers.get("stripe-signature"),
    );
  });
}
