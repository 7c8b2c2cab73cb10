// POST /api/account/subscriptions/resume {subscriptionId} → { subscriptionId }: renew again.
import { resumeAccountSubscription } from "#server/domain/account/billing.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";
import { resumeSubscriptionSchema } from "#server/domain/account/schemas.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(resumeSubscriptionSchema, (input, customer, { context }) =>
  resumeAccountSubscription(context.services, customer, input.subscriptionId),
);
