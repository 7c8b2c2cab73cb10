import { handleStripeWebhook } from "#server/domain/billing/webhook.ts";
import { ApiError, handleApi, postOnlyLoader } from "#server/http/api.ts";
import type { Route } from "./+types/webhooks-stripe";

const WEBHOOK_BODY_LIMIT_BYTES = 512 * 1024;

export const loader = postOnlyLoader;

/** The signature covers the exact bytes Stripe sent, so the body is read raw, never re-serialised. */
export function action({ request, context, params }: Route.ActionArgs) {
  return handleApi({ request, context, params }, async () => {
    if (request.method !== "POST")
      throw new ApiError(405, "Method not allowed", "Use POST for this endpoint.");
    if (Number(request.headers.get("content-length") ?? "0") > WEBHOOK_BODY_LIMIT_BYTES) {
      throw new ApiError(413, "Payload too large", "The webhook body is too large.");
    }
    const rawBody = await request.text();
    if (rawBody.length > WEBHOOK_BODY_LIMIT_BYTES) {
      throw new ApiError(413, "Payload too large", "The webhook body is too large.");
    }
    return handleStripeWebhook(context.services, rawBody, request.headers.get("stripe-signature"));
  });
}
