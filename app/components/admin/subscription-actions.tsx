import { ConfirmAction } from "#app/components/admin/confirm-action.tsx";
import { Input } from "#app/components/ui/input.tsx";
// Type-only: erased from the browser bundle.
import type { StaffSubscriptionAction } from "#server/domain/billing/subscription-actions.ts";

/**
 * The staff actions on one subscription: only those billing's rule says apply in its state
 * (decision 102); with none, a line that says why.
 */
export function SubscriptionActions({
  subscriptionId,
  actions,
}: {
  subscriptionId: string;
  actions: StaffSubscriptionAction[];
}) {
  const offers = new Set(actions);
  const target = { subscriptionId };
  if (offers.size === 0)
    return (
      <p className="mt-4 text-sm text-muted-foreground" data-testid="no-staff-actions">
        No action applies to a subscription in this state.
      </p>
    );
  return (
    <div className="mt-4 flex flex-wrap gap-2" data-testid="staff-actions">
      {offers.has("extend") ? (
        <ConfirmAction
          label="Extend"
          title="Extend this subscription"
          description="Adds days to the paid period; on Stripe the next charge moves to the new date, free of charge."
          fields={
            <label className="grid gap-1 text-sm font-medium">
              Days (1 to 366)
              <Input name="days" type="number" min={1} max={366} required defaultValue={7} />
            </label>
          }
          intent="extend"
          target={target}
        />
      ) : null}
      {offers.has("cancel-period-end") ? (
        <ConfirmAction
          label="Cancel at period end"
          title="Cancel at the end of the period"
          description="The plan stops renewing; its configs keep working until the period ends."
          intent="cancel"
          target={{ ...target, when: "period-end" }}
        />
      ) : null}
      {offers.has("cancel-now") ? (
        <ConfirmAction
          label="Cancel now"
          title="Cancel this subscription now"
          description="It ends at once: every device is revoked and, on Stripe, no further charge is made. No money goes back."
          variant="destructive"
          intent="cancel"
          target={{ ...target, when: "now" }}
        />
      ) : null}
      {offers.has("refund") ? (
        <ConfirmAction
          label="Refund"
          title="Refund this subscription"
          description="The payment goes back to the customer (on Stripe, a full refund), the subscription ends, every device is revoked and the customer is e-mailed."
          variant="destructive"
          intent="refund"
          target={target}
        />
      ) : null}
      {offers.has("reactivate") ? (
        <ConfirmAction
          label="Reactivate"
          title="Reactivate this subscription"
          description="Undoes a cancellation while the paid period lasts; device 1 is issued again if no device is live."
          intent="reactivate"
          target={target}
        />
      ) : null}
    </div>
  );
}
