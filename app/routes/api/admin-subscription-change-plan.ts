// POST /api/admin/subscriptions/change-plan {subscriptionId, planId, keepDeviceIds?, reason} →
// { status: "applied" | "pending", ... }: the customer's plan change, made by staff and audited.
import { changePlan, staffPlanChangeSchema } from "#server/domain/billing/plan-changes.ts";
import { postOnlyLoader } from "#server/http/api.ts";
import { adminEndpoint } from "#server/http/staff.ts";

export const loader = postOnlyLoader;
export const action = adminEndpoint(staffPlanChangeSchema, ({ reason, ...input }, staff, { context }) =>
  changePlan(context.services, input, { staff, reason }),
);
