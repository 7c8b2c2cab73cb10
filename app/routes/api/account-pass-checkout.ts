// POST /api/account/subscriptions/pass-checkout {subscriptionId, planId} → { url }: the checkout
// that gives an Unlock Pass 7 more days or moves it to a plan, keeping its devices.
import { passCheckoutSchema, planChange } from "#server/domain/billing/plan-change.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(passCheckoutSchema, (input, customer, { context }) =>
  planChange({ step: "pass-checkout", services: context.services, by: { customer }, input }),
);
