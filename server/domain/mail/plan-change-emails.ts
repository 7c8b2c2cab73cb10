import { formatMoney } from "#core/format.ts";
import type { Executor } from "#server/db/client.ts";
import type { Device, PlanChangeKind, Subscription } from "#server/db/schema/index.ts";
import { queueToCustomer, type CustomerEmailDeps } from "./customer-emails.ts";

// The e-mail a customer gets when their plan changed (billing's plan-change.ts), queued in the
// transaction that makes the change take effect.

export interface AppliedPlanChange {
  kind: PlanChangeKind;
  fromPlanName: string;
  toPlanName: string;
  amountCents: number;
  currency: string;
  chargedNow: boolean;
  byStaff: boolean;
  revokedDevices: Pick<Device, "name" | "slot">[];
}

export function queuePlanChangedEmail(
  tx: Executor,
  deps: CustomerEmailDeps,
  subscription: Pick<Subscription, "customerEmail" | "deviceLimit" | "expiresAt" | "planType">,
  change: AppliedPlanChange,
) {
  return queueToCustomer(tx, deps, subscription, {
    template: "plan-changed",
    data: {
      kind: change.kind,
      fromPlanName: change.fromPlanName,
      toPlanName: change.toPlanName,
      amount: change.amountCents === 0 ? null : formatMoney(Math.abs(change.amountCents), change.currency),
      direction: change.amountCents < 0 ? "credited" : "charged",
      chargedNow: change.chargedNow,
      byStaff: change.byStaff,
      deviceLimit: subscription.deviceLimit,
      oneTime: subscription.planType === "unlock",
      periodEndsAt: subscription.expiresAt,
      revokedDevices: change.revokedDevices.map((device) => device.name ?? `Device ${device.slot}`),
    },
  });
}
