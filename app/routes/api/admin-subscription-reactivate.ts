// POST /api/admin/subscriptions/reactivate {subscriptionId, reason} → the subscription, active again.
import { reactivateSubscription, reactivateSubscriptionSchema } from "#server/domain/billing/reactivation.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(reactivateSubscriptionSchema, (input, staff, { context }) =>
  reactivateSubscription(context.services, staff, input),
);
