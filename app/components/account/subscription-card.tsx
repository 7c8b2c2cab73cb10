import { CalendarX2, CreditCard, Plus, RotateCcw } from "lucide-react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { dateLabel } from "#app/components/purchase/verification.ts";
import { SubscriptionStatusBadge } from "#app/components/subscription-status-badge.tsx";
import { Button, type ButtonProps } from "#app/components/ui/button.tsx";
import { Card, CardContent, CardFooter, CardHeader } from "#app/components/ui/card.tsx";
import { formatLongDate, formatMoney } from "#core/format.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import { AddDeviceRefusalNote } from "#app/components/purchase/add-device-refusal-note.tsx";
import { addDeviceRefusalMessage } from "#core/device-actions.ts";
import type { PlanChangeView } from "#app/routes/account/changes.ts";
import { RefusalMessage, useAccountFetcher } from "./account-form.tsx";
import { DeviceItem } from "./device-item.tsx";
import { GuaranteePanel } from "./guarantee-panel.tsx";
import { PlanChangePanel } from "./plan-change-panel.tsx";
import { ReversedNotice, statusLabel } from "./reversed-notice.tsx";

/** The date label of docs/product.md §4.5, except once the subscription will not (or did not) renew. */
function expiryLabel(subscription: AccountSubscription): string {
  if (subscription.status === "cancels") return "Cancels on";
  if (!subscription.usable) return "Ended on";
  if (subscription.demoPurchase) return "Ends on";
  return dateLabel(subscription.planType);
}

/**
 * A plan bought with the demo's test card, on a store that now takes real payments (decision 122):
 * it keeps its period, then ends; nothing renews or changes it.
 */
function DemoPurchaseNotice({ subscription }: { subscription: AccountSubscription }) {
  if (!subscription.demoPurchase || !subscription.usable) return null;
  return (
    <p
      className="rounded-md border border-yellow-200 bg-yellow-50 p-3 text-sm text-yellow-900"
      data-testid="demo-purchase-notice"
    >
      Demo purchase: this plan was bought with the demo&apos;s test card before the store took real payments,
      so it does not renew and its plan cannot change. It keeps working until{" "}
      {formatLongDate(subscription.expiresAt)}; to stay connected after that,{" "}
      <Link to="/pricing" className="font-medium underline underline-offset-2">
        choose a plan
      </Link>
      .
    </p>
  );
}

/** A post about this subscription (add a device, cancel, resume, open billing): one button. */
function SubscriptionAction({
  intent,
  subscriptionId,
  children,
  pending,
  ...button
}: { intent: string; subscriptionId: string; children: ReactNode; pending?: ReactNode } & ButtonProps) {
  const { fetcher, busy, refusal } = useAccountFetcher(intent, subscriptionId);
  return (
    <fetcher.Form method="post" className="contents">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="subscriptionId" value={subscriptionId} />
      <Button type="submit" variant="outline" disabled={busy} {...button}>
        {busy && pending ? pending : children}
      </Button>
      <RefusalMessage message={refusal} />
    </fetcher.Form>
  );
}

/** A Stripe plan change whose invoice is not paid yet: the order it will be, and what was quoted. */
function AwaitingPaymentNotice({ subscription }: { subscription: AccountSubscription }) {
  const awaiting = subscription.awaitingPayment;
  if (!awaiting) return null;
  return (
    <p className="rounded-md bg-yellow-50 p-3 text-sm text-yellow-900" data-testid="awaiting-payment">
      Awaiting payment: the move to {awaiting.planName} (
      {formatMoney(awaiting.amountCents, awaiting.currency)}, order {awaiting.orderNumber}) is recorded as
      paid once Stripe confirms its invoice.
    </p>
  );
}

export function SubscriptionCard({
  subscription,
  now,
  planChange,
  refundStep = false,
}: {
  subscription: AccountSubscription;
  now: string;
  planChange: PlanChangeView | null;
  /** The address opened "Refund this purchase" of this subscription: its confirmation shows. */
  refundStep?: boolean;
}) {
  const renews = subscription.usable && subscription.period !== "one-time" && !subscription.demoPurchase;
  const used = subscription.devices.length;
  const headingId = `subscription-${subscription.id}`;

  return (
    <Card aria-labelledby={headingId} role="region" data-testid="subscription">
      <CardHeader className="gap-2">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id={headingId} className="text-xl font-semibold leading-tight" data-testid="plan-name">
            {subscription.planName}
          </h2>
          <SubscriptionStatusBadge
            state={subscription.status === "cancels" ? "cancelling" : subscription.status}
            label={statusLabel(subscription)}
            data-testid="subscription-status"
          />
        </div>
        <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
          <dt className="text-muted-foreground">Price</dt>
          <dd>
            {subscription.price}
            {subscription.period === "one-time" ? " one-time" : subscription.period}
          </dd>
          <dt className="text-muted-foreground" data-testid="date-label">
            {expiryLabel(subscription)}
          </dt>
          <dd data-testid="expiry-date">{formatLongDate(subscription.expiresAt)}</dd>
          <dt className="text-muted-foreground">Devices</dt>
          <dd data-testid="devices-in-use">
            {subscription.usable
              ? `${used} of ${subscription.deviceLimit} in use`
              : "None while it has ended"}
          </dd>
        </dl>
        <ReversedNotice subscription={subscription} />
        <DemoPurchaseNotice subscription={subscription} />
        <AwaitingPaymentNotice subscription={subscription} />
      </CardHeader>
      {subscription.devices.length ? (
        <CardContent>
          <ul className="flex flex-col gap-3" aria-label={`Devices of ${subscription.planName}`}>
            {subscription.devices.map((device) => (
              <DeviceItem
                key={`${device.id}:${device.downloadUrl}`}
                device={device}
                now={now}
                usable={subscription.usable}
              />
            ))}
          </ul>
        </CardContent>
      ) : null}
      <CardFooter className="flex flex-col items-stretch gap-2 sm:flex-row sm:flex-wrap sm:items-center">
        {subscription.addDevice === null ? (
          <SubscriptionAction intent="add-device" subscriptionId={subscription.id} pending="Adding...">
            <Plus aria-hidden="true" />
            Add a device
          </SubscriptionAction>
        ) : (
          <AddDeviceRefusalNote
            message={addDeviceRefusalMessage(subscription.addDevice, subscription.deviceLimit, "account")}
          />
        )}
        {subscription.usable && subscription.status !== "past_due" && !subscription.demoPurchase ? (
          <PlanChangePanel subscription={subscription} view={planChange} />
        ) : null}
        {renews && subscription.status !== "cancels" ? (
          <SubscriptionAction intent="cancel" subscriptionId={subscription.id}>
            <CalendarX2 aria-hidden="true" />
            Cancel at period end
          </SubscriptionAction>
        ) : null}
        {renews && subscription.status === "cancels" ? (
          <SubscriptionAction intent="resume" subscriptionId={subscription.id}>
            <RotateCcw aria-hidden="true" />
            Resume renewal
          </SubscriptionAction>
        ) : null}
        <SubscriptionAction
          intent="billing"
          subscriptionId={subscription.id}
          variant="link"
          className="h-auto whitespace-normal"
        >
          <CreditCard aria-hidden="true" />
          Manage payment method and invoices
        </SubscriptionAction>
        <GuaranteePanel subscription={subscription} confirming={refundStep} />
      </CardFooter>
    </Card>
  );
}
