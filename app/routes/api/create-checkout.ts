import { z } from "zod";
import { createCheckout } from "#server/domain/billing/checkout.ts";
import { jsonEndpoint, postOnlyLoader, tooManyRequests } from "#server/http/api.ts";
import { buyerCookieHeader, buyerTokenFor } from "#server/http/buyer-cookie.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";
import type { Route } from "./+types/create-checkout";

const EMAIL_REQUIRED = "customerEmail is required: the e-mail address the receipt and the config are sent to";

const createCheckoutSchema = z.object({
  planId: z.string().min(1).max(64),
  // The e-mail from the details step: the receipt and the config go there, so no checkout starts without it.
  customerEmail: z
    .string({ error: EMAIL_REQUIRED })
    .trim()
    .min(1, EMAIL_REQUIRED)
    .max(254)
    .pipe(z.email("customerEmail must be an e-mail address")),
  // The buyer's first and last name from the same step, so support can find the order by it.
  customerName: z
    .string()
    .max(201, "customerName must be at most 201 characters")
    .nullish()
    .transform((value) => value?.replace(/\s+/g, " ").trim() || null),
});

export const loader = postOnlyLoader;

export function action({ request, context, params }: Route.ActionArgs) {
  return jsonEndpoint(createCheckoutSchema, async (input) => {
    const limit = await consumeRateLimit(context.services.db, `create-checkout:${context.clientIp}`, {
      limit: 30,
      windowMs: 60_000,
    });
    if (!limit.allowed) throw tooManyRequests(limit.retryAfterSeconds);
    // The paying browser gets its buyer cookie here, before it leaves for the checkout.
    const buyerToken = await buyerTokenFor(request);
    const checkout = await createCheckout(context.services, { ...input, buyerToken });
    return Response.json(
      { url: checkout.url },
      {
        headers: {
          "Cache-Control": "no-store",
          "Set-Cookie": await buyerCookieHeader(buyerToken, context.services.config),
        },
      },
    );
  })({ request, context, params });
}
