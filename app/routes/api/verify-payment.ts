import { z } from "zod";
import { jsonEndpoint, postOnlyLoader } from "#server/http/api.ts";
import { verificationAnswer } from "#server/http/payment-verification.ts";
import type { Route } from "./+types/verify-payment";

const verifyPaymentSchema = z.object({
  sessionId: z.string().min(1).max(255),
  newDevice: z.boolean().optional(),
});

export const loader = postOnlyLoader;

/** Verdicts keep the storefront's shape (docs/product.md §10.1) `{ success: false, error, message }` with a telling status (decision 052). */
export function action({ request, context, params }: Route.ActionArgs) {
  return jsonEndpoint(verifyPaymentSchema, async (input) => {
    const answer = await verificationAnswer(request, context, input);
    if (answer.status === 200) return answer.body;
    return Response.json(answer.body, {
      status: answer.status,
      headers: { "Cache-Control": "no-store", ...answer.headers },
    });
  })({ request, context, params });
}
