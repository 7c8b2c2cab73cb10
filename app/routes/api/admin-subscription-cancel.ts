// POST /api/admin/subscriptions/cancel {subscriptionId, when: "now" | "period-end", reason} → the subscription.
import { cancelSubscription, cancelSubscriptionSchema } from "#server/domain/billing/staff-actions.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(cancelSubscriptionSchema, (input, staff, { context }) =>
  cancelSubscription(context.services, staff, input),
);
