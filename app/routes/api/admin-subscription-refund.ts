// POST /api/admin/subscriptions/refund {subscriptionId, reason} → the subscription, refunded, devices revoked; a second refund is 409.
import { refundSubscription, refundSubscriptionSchema } from "#server/domain/billing/staff-actions.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(refundSubscriptionSchema, (input, staff, { context }) =>
  refundSubscription(context.services, staff, input),
);
