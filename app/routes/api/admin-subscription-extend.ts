// POST /api/admin/subscriptions/extend {subscriptionId, days 1..366, reason} → the subscription; Stripe's next charge moves too.
import { extendSubscription, extendSubscriptionSchema } from "#server/domain/billing/staff-actions.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(extendSubscriptionSchema, (input, staff, { context }) =>
  extendSubscription(context.services, staff, input),
);
