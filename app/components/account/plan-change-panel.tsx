import { ArrowUpDown } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "#app/components/ui/button.tsx";
import { formatLongDate } from "#app/lib/format.ts";
import { priceDifference } from "#app/lib/price-difference.ts";
import { planByType, PLANS, type Plan } from "#app/lib/plans.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import type { PlanChangeQuote, PlanChangeResult } from "#server/domain/billing/plan-changes.ts";
import { accountCall } from "./account-api.ts";

// The account page's plan change (decision 104): choose a plan, see the price difference and, on
// a downgrade below the devices in use, choose the devices to keep; then confirm. An Unlock Pass
// pays for 7 more days or a plan through a checkout.

/** The plans this subscription may move to: a pass to any (itself: 7 more days), a plan to the other plans. */
function targetsOf(current: Plan): Plan[] {
  if (current.billing === "one_time") return [...PLANS];
  return PLANS.filter((plan) => plan.billing === "recurring" && plan.id !== current.id);
}

function targetLabel(current: Plan, plan: Plan): string {
  if (plan.id === current.id) return `Add 7 more days (${plan.price})`;
  return `${plan.name}: ${plan.price}${plan.period === "one-time" ? "" : plan.period}, ${plan.devices}`;
}

export function PlanChangePanel({
  subscription,
  onChanged,
}: {
  subscription: AccountSubscription;
  onChanged: () => void;
}) {
  const current = planByType(subscription.planType);
  const [open, setOpen] = useState(false);
  const [quote, setQuote] = useState<PlanChangeQuote | null>(null);
  const [keep, setKeep] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const formId = `plan-change-${subscription.id}`;
  const isPass = current.billing === "one_time";

  function close() {
    setOpen(false);
    setQuote(null);
    setKeep([]);
  }

  async function review(planId: string) {
    setBusy(true);
    const result = await accountCall<PlanChangeQuote>("subscriptions/plan-change/quote", {
      subscriptionId: subscription.id,
      planId,
    });
    setBusy(false);
    if (!result.ok) return void toast.error(result.error ?? "Not Available", { description: result.message });
    setQuote(result.data!);
    setKeep([]);
  }

  async function confirm(change: PlanChangeQuote) {
    setBusy(true);
    if (change.throughCheckout) {
      const result = await accountCall<{ url: string }>("subscriptions/pass-checkout", {
        subscriptionId: subscription.id,
        planId: change.to.planId,
      });
      setBusy(false);
      if (result.ok) window.location.assign(result.data!.url);
      else toast.error(result.error ?? "Checkout Unavailable", { description: result.message });
      return;
    }
    const result = await accountCall<PlanChangeResult>("subscriptions/plan-change", {
      subscriptionId: subscription.id,
      planId: change.to.planId,
      ...(change.keepCount !== null ? { keepDeviceIds: keep } : {}),
    });
    setBusy(false);
    if (!result.ok)
      return void toast.error(result.error ?? "Plan Not Changed", { description: result.message });
    toast.success(result.data!.status === "applied" ? "Plan Changed" : "Plan Change Requested", {
      description:
        result.data!.status === "applied"
          ? `You are now on ${change.to.name}.`
          : `Your change to ${change.to.name} takes effect as soon as the payment provider confirms it.`,
    });
    close();
    onChanged();
  }

  if (!open) {
    return (
      <Button variant="outline" onClick={() => setOpen(true)}>
        <ArrowUpDown aria-hidden="true" />
        {isPass ? "Extend or upgrade" : "Change plan"}
      </Button>
    );
  }

  if (!quote) {
    return (
      <form
        id={formId}
        className="flex w-full flex-col gap-2 rounded-md border p-3"
        aria-label="Change plan"
        onSubmit={(event) => {
          event.preventDefault();
          void review(String(new FormData(event.currentTarget).get("planId") ?? ""));
        }}
      >
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 font-medium">Change {current.name} to</legend>
          {targetsOf(current).map((plan, index) => (
            <label key={plan.id} className="flex items-center gap-2 text-sm">
              <input type="radio" name="planId" value={plan.id} defaultChecked={index === 0} />
              {targetLabel(current, plan)}
            </label>
          ))}
        </fieldset>
        <div className="flex gap-2">
          <Button type="submit" disabled={busy}>
            Review change
          </Button>
          <Button type="button" variant="outline" onClick={close}>
            Cancel
          </Button>
        </div>
      </form>
    );
  }

  const mustChoose = quote.keepCount !== null && keep.length !== quote.keepCount;
  return (
    <section
      className="flex w-full flex-col gap-3 rounded-md border p-3"
      aria-label="Confirm plan change"
      data-testid="plan-change-confirmation"
    >
      <h3 className="font-semibold">
        {quote.kind === "pass-extend" ? "Add 7 more days to your pass" : `Change to ${quote.to.name}`}
      </h3>
      <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
        <dt className="text-muted-foreground">From</dt>
        <dd>{`${quote.from.name} (${quote.from.price})`}</dd>
        <dt className="text-muted-foreground">To</dt>
        <dd>{`${quote.to.name} (${quote.to.price})`}</dd>
        <dt className="text-muted-foreground">Price difference</dt>
        <dd data-testid="price-difference">{priceDifference(quote)}</dd>
        <dt className="text-muted-foreground">Devices</dt>
        <dd>{`Up to ${quote.to.deviceLimit}`}</dd>
        <dt className="text-muted-foreground">
          {quote.to.planId === "unlock" ? "Access until" : "Renews on"}
        </dt>
        <dd>{formatLongDate(quote.periodEndsAt)}</dd>
      </dl>
      {quote.keepCount !== null ? (
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-medium">
            {`Choose ${quote.keepCount} of your ${quote.devices.length} devices to keep. The others stop working when the change takes effect.`}
          </legend>
          {quote.devices.map((device) => (
            <label key={device.id} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                name="keepDeviceIds"
                value={device.id}
                checked={keep.includes(device.id)}
                onChange={(event) =>
                  setKeep((chosen) =>
                    event.target.checked ? [...chosen, device.id] : chosen.filter((id) => id !== device.id),
                  )
                }
              />
              {`Keep ${device.name}`}
            </label>
          ))}
        </fieldset>
      ) : null}
      <div className="flex gap-2">
        <Button onClick={() => void confirm(quote)} disabled={busy || mustChoose}>
          {quote.throughCheckout ? "Continue to payment" : "Confirm change"}
        </Button>
        <Button variant="outline" onClick={close}>
          Cancel
        </Button>
      </div>
    </section>
  );
}
