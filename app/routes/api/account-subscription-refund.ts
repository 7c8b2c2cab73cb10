// POST /api/account/subscriptions/refund {subscriptionId} → { subscriptionId, status }: the 7-day guarantee.
import { refundAccountSubscription } from "#server/domain/account/billing.ts";
import { guaranteeRefundSchema } from "#server/domain/account/schemas.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(guaranteeRefundSchema, (input, customer, { context }) =>
  refundAccountSubscription(context.services, customer, input.subscriptionId),
);
