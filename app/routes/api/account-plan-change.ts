// POST /api/account/subscriptions/plan-change {subscriptionId, planId, keepDeviceIds?} →
// { status: "applied" | "pending", ... }: upgrade, downgrade or monthly ↔ yearly.
import { planChange, planChangeSchema } from "#server/domain/billing/plan-change.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(planChangeSchema, (input, customer, { context }) =>
  planChange({ step: "change", services: context.services, by: { customer }, input }),
);
