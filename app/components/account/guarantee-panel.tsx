import { Undo2 } from "lucide-react";
import { Link } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { formatLongDate, formatMoney } from "#core/format.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import { RefusalMessage, StepButton, StepCancel, useAccountFetcher } from "./account-form.tsx";

// "Refund this purchase" under the 7-day guarantee (docs/product.md §3.3, decision 136). The
// button opens a confirmation (`?refund=<subscription>`, a GET form, so it works without
// JavaScript); confirming posts the `refund` intent. Outside the guarantee's rules the card says
// why and links the contact form.

export function GuaranteePanel({
  subscription,
  confirming,
}: {
  subscription: AccountSubscription;
  confirming: boolean;
}) {
  const guarantee = subscription.guarantee;
  const { fetcher, busy, refusal } = useAccountFetcher("refund", subscription.id);
  if (!guarantee) return null;
  if (!guarantee.offered) {
    // A plan long ended needs no account of its guarantee.
    if (!subscription.usable) return null;
    return (
      <p className="basis-full text-sm text-muted-foreground" data-testid="guarantee-refusal">
        7-day guarantee: {guarantee.reason}{" "}
        <Link to="/contact" className="font-medium text-primary underline underline-offset-2">
          Contact support
        </Link>
      </p>
    );
  }
  const amount = formatMoney(guarantee.amountCents, guarantee.currency);
  if (!confirming) {
    return (
      <div className="flex basis-full flex-col gap-1" data-testid="guarantee-offer">
        <StepButton fields={{ refund: subscription.id }} className="w-fit">
          <Undo2 aria-hidden="true" />
          Refund this purchase
        </StepButton>
        <p className="text-sm text-muted-foreground">
          7-day guarantee: unused, it can be refunded in full ({amount}) until{" "}
          {formatLongDate(guarantee.until)}.
        </p>
      </div>
    );
  }
  return (
    <div
      className="flex basis-full flex-col gap-2 rounded-md bg-red-50 p-3"
      role="alert"
      data-testid="guarantee-confirm"
    >
      <p className="text-sm text-red-900">
        Refund {amount} now? This plan ends at once: its configs stop working and it will not renew.
      </p>
      <div className="flex flex-wrap gap-2">
        <fetcher.Form method="post" className="contents">
          <input type="hidden" name="intent" value="refund" />
          <input type="hidden" name="subscriptionId" value={subscription.id} />
          <Button type="submit" variant="destructive" disabled={busy}>
            {busy ? "Refunding..." : `Yes, refund ${amount}`}
          </Button>
        </fetcher.Form>
        <StepCancel label="Keep my plan" />
      </div>
      <RefusalMessage message={refusal} />
    </div>
  );
}
