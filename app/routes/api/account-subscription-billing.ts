// POST /api/account/subscriptions/billing {subscriptionId} → { url }: the Stripe Customer Portal,
// or the plain receipt page when Stripe does not bill this subscription.
import { accountBillingUrl } from "#server/domain/account/billing.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";
import { billingLinkSchema } from "#server/domain/account/schemas.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(billingLinkSchema, (input, customer, { context }) =>
  accountBillingUrl(context.services, customer, input.subscriptionId),
);
