import { CalendarX2, CreditCard, Plus, RotateCcw } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { dateLabel } from "#app/components/purchase/verification.ts";
import { SubscriptionStatusBadge } from "#app/components/subscription-status-badge.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Card, CardContent, CardFooter, CardHeader } from "#app/components/ui/card.tsx";
import { formatLongDate } from "#app/lib/format.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import { AddDeviceRefusalNote } from "#app/components/purchase/add-device-refusal-note.tsx";
import { addDeviceRefusalMessage } from "#app/lib/device-actions.ts";
import { accountCall, DEVICE_LIMIT_ERROR } from "./account-api.ts";
import { DeviceItem } from "./device-item.tsx";
import { PlanChangePanel } from "./plan-change-panel.tsx";
import { ReversedNotice, statusLabel } from "./reversed-notice.tsx";

/** Spec §4's label, except once the subscription will not (or did not) renew. */
function expiryLabel(subscription: AccountSubscription): string {
  if (subscription.status === "cancels") return "Cancels on";
  if (!subscription.usable) return "Ended on";
  return dateLabel(subscription.planType);
}

export function SubscriptionCard({
  subscription,
  now,
  onChanged,
}: {
  subscription: AccountSubscription;
  now: string;
  onChanged: () => void;
}) {
  const [adding, setAdding] = useState(false);
  const [busy, setBusy] = useState(false);
  const renews = subscription.usable && subscription.period !== "one-time";
  const used = subscription.devices.length;
  const headingId = `subscription-${subscription.id}`;

  async function addDevice() {
    setAdding(true);
    const result = await accountCall<{ slot: number }>("devices/add", { subscriptionId: subscription.id });
    setAdding(false);
    if (result.ok) {
      toast.success("Device Added", { description: `The config for device ${result.data!.slot} is ready.` });
      onChanged();
    } else if (result.error === DEVICE_LIMIT_ERROR) {
      toast.error("Device Limit Reached", { description: result.message });
      onChanged();
    } else {
      toast.error(result.error ?? "Device Not Added", { description: result.message });
      onChanged();
    }
  }

  async function changeRenewal(change: "cancel" | "resume") {
    setBusy(true);
    const result = await accountCall(`subscriptions/${change}`, { subscriptionId: subscription.id });
    setBusy(false);
    if (result.ok) {
      toast.success(change === "cancel" ? "Renewal Cancelled" : "Renewal Resumed", {
        description:
          change === "cancel"
            ? `Your plan keeps working until ${formatLongDate(subscription.expiresAt)}.`
            : "Your plan renews as before.",
      });
      onChanged();
    } else {
      toast.error(result.error ?? "Not Changed", { description: result.message });
    }
  }

  async function openBilling() {
    setBusy(true);
    const result = await accountCall<{ url: string }>("subscriptions/billing", {
      subscriptionId: subscription.id,
    });
    setBusy(false);
    if (result.ok) window.location.assign(result.data!.url);
    else toast.error(result.error ?? "Billing Unavailable", { description: result.message });
  }

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
                onChanged={onChanged}
              />
            ))}
          </ul>
        </CardContent>
      ) : null}
      <CardFooter className="flex flex-col items-stretch gap-2 sm:flex-row sm:flex-wrap sm:items-center">
        {subscription.addDevice === null ? (
          <Button variant="outline" onClick={addDevice} disabled={adding}>
            <Plus aria-hidden="true" />
            {adding ? "Adding..." : "Add a device"}
          </Button>
        ) : (
          <AddDeviceRefusalNote
            message={addDeviceRefusalMessage(subscription.addDevice, subscription.deviceLimit, "account")}
          />
        )}
        {subscription.usable && subscription.status !== "past_due" ? (
          <PlanChangePanel subscription={subscription} onChanged={onChanged} />
        ) : null}
        {renews && subscription.status !== "cancels" ? (
          <Button variant="outline" onClick={() => void changeRenewal("cancel")} disabled={busy}>
            <CalendarX2 aria-hidden="true" />
            Cancel at period end
          </Button>
        ) : null}
        {renews && subscription.status === "cancels" ? (
          <Button variant="outline" onClick={() => void changeRenewal("resume")} disabled={busy}>
            <RotateCcw aria-hidden="true" />
            Resume renewal
          </Button>
        ) : null}
        <Button
          variant="link"
          className="h-auto whitespace-normal"
          onClick={() => void openBilling()}
          disabled={busy}
        >
          <CreditCard aria-hidden="true" />
          Manage payment method and invoices
        </Button>
      </CardFooter>
    </Card>
  );
}
