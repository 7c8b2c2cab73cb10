import { ArrowUpDown } from "lucide-react";
import { useState } from "react";
import { Form } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { formatLongDate } from "#core/format.ts";
import { priceDifference } from "#app/lib/price-difference.ts";
import { planByType, PLANS, type Plan } from "#core/plans.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import type { PlanChangeView } from "#app/routes/account/changes.ts";
import type { PlanChangeQuote } from "#server/domain/billing/plan-change.ts";
import { planChangeTargets } from "#core/plan-change-terms.ts";
import { RefusalMessage, StepButton, StepCancel, useAccountFetcher, useHydrated } from "./account-form.tsx";

// The account page's plan change: choose a plan, see the price difference and, on
// a downgrade below the devices in use, choose the devices to keep; then confirm. The address
// (`?change=<subscription>&planId=…`) opens each step, so each works without JavaScript too. An Unlock Pass
// pays for 7 more days or a plan through a checkout.

function targetLabel(current: Plan, plan: Plan): string {
  if (plan.id === current.id) return `Add 7 more days (${plan.price})`;
  return `${plan.name}: ${plan.price}${plan.period === "one-time" ? "" : plan.period}, ${plan.devices}`;
}

export function PlanChangePanel({
  subscription,
  view,
}: {
  subscription: AccountSubscription;
  view: PlanChangeView | null;
}) {
  const current = planByType(subscription.planType);
  const isPass = current.billing === "one_time";
  if (!view) {
    return (
      <StepButton fields={{ change: subscription.id }}>
        <ArrowUpDown aria-hidden="true" />
        {isPass ? "Extend or upgrade" : "Change plan"}
      </StepButton>
    );
  }
  if (!view.quote) {
    return (
      <div className="flex w-full flex-col gap-2 rounded-md border p-3">
        <Form method="get" preventScrollReset className="flex flex-col gap-2" aria-label="Change plan">
          <input type="hidden" name="change" value={subscription.id} />
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-1 font-medium">Change {current.name} to</legend>
            {planChangeTargets(current, PLANS).map((plan, index) => (
              <label key={plan.id} className="flex items-center gap-2 text-sm">
                <input type="radio" name="planId" value={plan.id} defaultChecked={index === 0} />
                {targetLabel(current, plan)}
              </label>
            ))}
          </fieldset>
          <RefusalMessage message={view.refusal} />
          <div>
            <Button type="submit">Review change</Button>
          </div>
        </Form>
        <div>
          <StepCancel />
        </div>
      </div>
    );
  }
  return <PlanChangeConfirmation quote={view.quote} />;
}

/** The change's terms; on a downgrade below the devices in use, which devices to keep. */
function PlanChangeConfirmation({ quote }: { quote: PlanChangeQuote }) {
  const intent = quote.throughCheckout ? "pass-checkout" : "change-plan";
  const { fetcher, busy, refusal } = useAccountFetcher(intent, quote.subscriptionId);
  const hydrated = useHydrated();
  const [kept, setKept] = useState(0);
  // Without JavaScript the server alone checks the choice; with it, the button waits for it.
  const mustChoose = hydrated && quote.keepCount !== null && kept !== quote.keepCount;
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
      <fetcher.Form method="post" className="flex flex-col gap-3">
        <input type="hidden" name="intent" value={intent} />
        <input type="hidden" name="subscriptionId" value={quote.subscriptionId} />
        <input type="hidden" name="planId" value={quote.to.planId} />
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
                  onChange={(event) => setKept((count) => count + (event.target.checked ? 1 : -1))}
                />
                {`Keep ${device.name}`}
              </label>
            ))}
          </fieldset>
        ) : null}
        <RefusalMessage message={refusal} />
        <div>
          <Button type="submit" disabled={busy || mustChoose}>
            {quote.throughCheckout ? "Continue to payment" : "Confirm change"}
          </Button>
        </div>
      </fetcher.Form>
      <div>
        <StepCancel />
      </div>
    </section>
  );
}
