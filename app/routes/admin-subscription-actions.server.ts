// The /admin/subscriptions/:id page's posts: each one's /api/admin/subscriptions/* or
// /api/admin/devices/* schema and domain call.
import type { AppServices } from "#server/services.ts";
import { planChange, staffPlanChangeSchema } from "#server/domain/billing/plan-change.ts";
import { reactivateSubscription, reactivateSubscriptionSchema } from "#server/domain/billing/reactivation.ts";
import {
  cancelSubscription,
  cancelSubscriptionSchema,
  extendSubscription,
  extendSubscriptionSchema,
  refundSubscription,
  refundSubscriptionSchema,
} from "#server/domain/billing/staff-actions.ts";
import {
  rekeyDeviceSchema,
  resendConfigSchema,
  revokeDeviceSchema,
  staffRekeyDevice,
  staffResendConfig,
  staffRevokeDevice,
} from "#server/domain/vpn/staff-devices.ts";
import { filledFields, staffIntent, type StaffIntent } from "#server/http/staff-form.ts";

/** A number field as the JSON body carries it; anything else is left for the schema to refuse. */
const asNumber = (value: string | undefined) => (value && /^-?\d+$/.test(value) ? Number(value) : value);

export const subscriptionIntents = (services: AppServices): Record<string, StaffIntent> => ({
  extend: staffIntent({
    schema: extendSubscriptionSchema,
    fromForm: (form) => {
      const fields = filledFields(form);
      return { ...fields, days: asNumber(fields.days) };
    },
    run: (input, staff) => extendSubscription(services, staff, input),
    done: "Subscription extended",
  }),
  cancel: staffIntent({
    schema: cancelSubscriptionSchema,
    run: (input, staff) => cancelSubscription(services, staff, input),
    done: (subscription) =>
      subscription.cancelAtPeriodEnd && subscription.status !== "canceled"
        ? "The subscription will end at its period end"
        : "Subscription cancelled",
  }),
  refund: staffIntent({
    schema: refundSubscriptionSchema,
    run: (input, staff) => refundSubscription(services, staff, input),
    done: "Refunded",
  }),
  reactivate: staffIntent({
    schema: reactivateSubscriptionSchema,
    run: (input, staff) => reactivateSubscription(services, staff, input),
    done: "Subscription reactivated",
  }),
  "change-plan": staffIntent({
    schema: staffPlanChangeSchema,
    fromForm: (form) => {
      const keepDeviceIds = form.getAll("keepDeviceIds").map(String);
      const { keepDeviceIds: _last, ...fields } = filledFields(form);
      return keepDeviceIds.length ? { ...fields, keepDeviceIds } : fields;
    },
    run: ({ reason, ...input }, staff) =>
      planChange({ step: "change", services, by: { staff, reason }, input }),
    done: "Plan changed",
  }),
  "resend-config": staffIntent({
    schema: resendConfigSchema,
    run: (input, staff) => staffResendConfig(services, staff, input),
    done: "Config e-mail queued",
  }),
  rekey: staffIntent({
    schema: rekeyDeviceSchema,
    run: (input, staff) => staffRekeyDevice(services, staff, input),
    done: "New keys issued and e-mailed",
  }),
  revoke: staffIntent({
    schema: revokeDeviceSchema,
    run: (input, staff) => staffRevokeDevice(services, staff, input),
    done: "Device revoked",
  }),
});
