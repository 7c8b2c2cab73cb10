import { Select } from "#app/components/ui/input.tsx";
import { priceDifference } from "#app/lib/price-difference.ts";
// Type-only: erased from the browser bundle.
import type { SubscriptionPage } from "#server/domain/ops/subscription-page.ts";
import { ConfirmAction } from "./confirm-action.tsx";

// The staff console's plan change (decision 104): the customer's own change, made for them with a
// reason; each plan shows the price difference it makes now.

export function PlanChangeAction({
  page,
}: {
  page: Pick<SubscriptionPage, "subscription" | "planChanges" | "devices">;
}) {
  if (page.planChanges.length === 0) return null;
  const live = page.devices.filter((device) => !device.revokedAt);
  return (
    <ConfirmAction
      label="Change plan"
      title="Change the plan of this subscription"
      description={
        page.subscription.provider === "stripe"
          ? "Stripe prorates the change; it takes effect here when Stripe confirms it. The customer is e-mailed."
          : "The change takes effect at once, prorated as Stripe would. The customer is e-mailed."
      }
      fields={
        <>
          <label className="grid gap-1 text-sm font-medium">
            New plan
            <Select name="planId" required>
              {page.planChanges.map((option) => (
                <option key={option.planId} value={option.planId}>
                  {`${option.name} (${option.price}, up to ${option.deviceLimit}): ${priceDifference(option)}`}
                </option>
              ))}
            </Select>
          </label>
          {live.length > 1 ? (
            <fieldset className="grid gap-1 text-sm">
              <legend className="font-medium">
                On a downgrade below {live.length} devices, the devices to keep
              </legend>
              {live.map((device) => (
                <label key={device.id} className="flex items-center gap-2">
                  <input type="checkbox" name="keepDeviceIds" value={device.id} />
                  {`Keep ${device.name}`}
                </label>
              ))}
            </fieldset>
          ) : null}
        </>
      }
      intent="change-plan"
      target={{ subscriptionId: page.subscription.id }}
    />
  );
}
