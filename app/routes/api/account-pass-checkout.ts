// POST /api/account/subscriptions/pass-checkout {subscriptionId, planId} → { url }: the checkout
// that gives an Unlock Pass 7 more days or moves it to a plan, keeping its devices.
import { startAccountPassCheckout } from "#server/domain/account/plan-changes.ts";
import { passCheckoutSchema } from "#server/domain/billing/pass-changes.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(passCheckoutSchema, (input, customer, { context }) =>
  startAccountPassCheckout(context.services, customer, input),
);
