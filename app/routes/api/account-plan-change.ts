// POST /api/account/subscriptions/plan-change {subscriptionId, planId, keepDeviceIds?} →
// { status: "applied" | "pending", ... }: upgrade, downgrade or monthly ↔ yearly.
import { changeAccountPlan } from "#server/domain/account/plan-changes.ts";
import { planChangeSchema } from "#server/domain/billing/plan-changes.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { customerEndpoint } from "#server/http/customer.ts";

export const loader = postOnlyLoader;
export const action = customerEndpoint(planChangeSchema, (input, customer, { context }) =>
  changeAccountPlan(context.services, customer, input),
);
