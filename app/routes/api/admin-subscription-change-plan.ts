// POST /api/admin/subscriptions/change-plan {subscriptionId, planId, keepDeviceIds?, reason} →
// { status: "applied" | "pending", ... }: the customer's plan change, made by staff and audited.
import { planChange, staffPlanChangeSchema } from "#server/domain/billing/plan-change.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(staffPlanChangeSchema, ({ reason, ...input }, staff, { context }) =>
  planChange({ step: "change", services: context.services, by: { staff, reason }, input }),
);
