import { z } from "zod";
import { customerOf } from "#server/domain/account/customer-auth.ts";
import { PaymentReversed } from "#server/domain/billing/errors.ts";
import { verifyPayment } from "#server/domain/billing/verify.ts";
import { DomainError } from "#server/domain/errors.ts";
import { jsonEndpoint, postOnlyLoader, statusOf } from "#server/http/api.ts";
import { readBuyerToken } from "#server/http/buyer-cookie.ts";
import type { Route } from "./+types/verify-payment";

const verifyPaymentSchema = z.object({
  sessionId: z.string().min(1).max(255),
  newDevice: z.boolean().optional(),
});

export const loader = postOnlyLoader;

/** Verdicts keep the storefront's shape (docs/product.md §10.1) `{ success: false, error, message }` with a telling status (decision 052). */
export function action({ request, context, params }: Route.ActionArgs) {
  return jsonEndpoint(verifyPaymentSchema, async (input) => {
    try {
      return await verifyPayment(context.services, input, {
        clientIp: context.clientIp,
        buyerToken: await readBuyerToken(request),
        customerEmail: (await customerOf(context.services.customerAuth, request))?.email ?? null,
      });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const { status, headers } = statusOf(error);
      return Response.json(
        {
          success: false,
          error: error.error,
          message: error.message,
          ...(error instanceof PaymentReversed ? { [`${error.reversal}At`]: error.at.toISOString() } : {}),
        },
        { status, headers: { "Cache-Control": "no-store", ...headers } },
      );
    }
  })({ request, context, params });
}
