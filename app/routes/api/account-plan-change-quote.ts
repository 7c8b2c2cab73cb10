// POST /api/account/subscriptions/plan-change/quote {subscriptionId, planId} → the change's terms:
// price difference, new limit, the devices to choose from when it is lower.
import { planChange, planChangeQuoteSchema } from "#server/domain/billing/plan-change.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(planChangeQuoteSchema, (input, customer, { context }) =>
  planChange({ step: "quote", services: context.services, by: { customer }, input }),
);
