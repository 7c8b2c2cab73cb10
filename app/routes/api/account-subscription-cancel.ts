// POST /api/account/subscriptions/cancel {subscriptionId} → { subscriptionId }: cancel at period end.
import { cancelAccountSubscription } from "#server/domain/account/billing.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";
import { cancelSubscriptionSchema } from "#server/domain/account/schemas.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(cancelSubscriptionSchema, (input, customer, { context }) =>
  cancelAccountSubscription(context.services, customer, input.subscriptionId),
);
