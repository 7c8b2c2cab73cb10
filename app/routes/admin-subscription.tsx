import { EmailAddress } from "#app/components/ui/email-address.tsx";
import { formatDateTimeUtc, formatMoney } from "#app/lib/format.ts";
import { data, Link, useRevalidator } from "react-router";
import { ScrollRegion } from "#app/components/ui/scroll-region.tsx";
import { adminCall } from "#app/components/admin/api.ts";
import { ConfirmAction } from "#app/components/admin/confirm-action.tsx";
import { PlanChangeAction } from "#app/components/admin/plan-change-action.tsx";
import { Badge } from "#app/components/ui/badge.tsx";
import { Input } from "#app/components/ui/input.tsx";
import { adminPageMeta } from "#app/lib/meta.ts";
import { DomainError } from "#server/domain/errors.ts";
import { subscriptionPage, type SubscriptionPage } from "#server/domain/ops/subscription-page.ts";
import { requireStaffPage } from "#server/http/staff-pages.ts";
import type { Route } from "./+types/admin-subscription";

export const meta: Route.MetaFunction = ({ matches, params }) =>
  adminPageMeta("Subscription", `/admin/subscriptions/${params.id}`, matches);

export async function loader({ request, params, context }: Route.LoaderArgs) {
  await requireStaffPage(request, context.services, "admin");
  try {
    return await subscriptionPage(context.services, params.id);
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not-found")
      throw data("Subscription not found", { status: 404 });
    throw error;
  }
}

const when = (value: string | null) => formatDateTimeUtc(value, "—");

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="mt-8" aria-label={title}>
      <h2 className="text-lg font-semibold">{title}</h2>
      <ScrollRegion label={`${title} (scrolls sideways)`} className="mt-3">
        {children}
      </ScrollRegion>
    </section>
  );
}

function Table({ head, rows }: { head: string[]; rows: React.ReactNode[][] }) {
  if (rows.length === 0) return <p className="text-sm text-muted-foreground">None.</p>;
  return (
    <table className="w-full min-w-[40rem] text-left text-sm">
      <thead className="border-b text-xs uppercase text-muted-foreground">
        <tr>
          {head.map((cell) => (
            <th key={cell} className="py-2 pr-4">
              {cell}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={index} className="border-b align-top">
            {row.map((cell, column) => (
              <td key={column} className="py-2 pr-4">
                {cell}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function SubscriptionActions({ subscription }: { subscription: SubscriptionPage["subscription"] }) {
  const { revalidate } = useRevalidator();
  const subscriptionId = subscription.id;
  const call = (path: string, body: Record<string, unknown>) => (reason: string) =>
    adminCall(`subscriptions/${path}`, { subscriptionId, reason, ...body });
  return (
    <div className="mt-4 flex flex-wrap gap-2">
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
        run={(reason, form) =>
          adminCall("subscriptions/extend", { subscriptionId, reason, days: Number(form.get("days")) })
        }
        onDone={revalidate}
        successMessage="Subscription extended"
      />
      {subscription.recurring ? (
        <ConfirmAction
          label="Cancel at period end"
          title="Cancel at the end of the period"
          description="The plan stops renewing; its configs keep working until the period ends."
          run={call("cancel", { when: "period-end" })}
          onDone={revalidate}
          successMessage="The subscription will end at its period end"
        />
      ) : null}
      <ConfirmAction
        label="Cancel now"
        title="Cancel this subscription now"
        description="It ends at once: every device is revoked and, on Stripe, no further charge is made. No money goes back."
        variant="destructive"
        run={call("cancel", { when: "now" })}
        onDone={revalidate}
        successMessage="Subscription cancelled"
      />
      <ConfirmAction
        label="Refund"
        title="Refund this subscription"
        description="The payment goes back to the customer (on Stripe, a full refund), the subscription ends and every device is revoked."
        variant="destructive"
        run={call("refund", {})}
        onDone={revalidate}
        successMessage="Refunded"
      />
      <ConfirmAction
        label="Reactivate"
        title="Reactivate this subscription"
        description="Undoes a cancellation while the paid period lasts; device 1 is issued again if no device is live. A refunded plan cannot be reactivated."
        run={call("reactivate", {})}
        onDone={revalidate}
        successMessage="Subscription reactivated"
      />
    </div>
  );
}

function DeviceActions({ device }: { device: SubscriptionPage["devices"][number] }) {
  const { revalidate } = useRevalidator();
  if (device.revokedAt)
    return <span className="text-muted-foreground">Revoked {when(device.revokedAt)}</span>;
  const call = (path: string) => (reason: string) =>
    adminCall(`devices/${path}`, { deviceId: device.id, reason });
  return (
    <div className="flex flex-wrap gap-2">
      <ConfirmAction
        label="Resend config"
        title={`Resend the config of ${device.name}`}
        description="E-mails the customer this device's config again, with its current download link."
        run={call("resend-config")}
        onDone={revalidate}
        successMessage="Config e-mail queued"
      />
      <ConfirmAction
        label="New keys"
        title={`New keys for ${device.name}`}
        description="The old config stops working; the customer is e-mailed the new one."
        run={call("rekey")}
        onDone={revalidate}
        successMessage="New keys issued and e-mailed"
      />
      <ConfirmAction
        label="Revoke"
        title={`Revoke ${device.name}`}
        description="Its config stops working, its download link answers 410 and the slot is free. The customer is told."
        variant="destructive"
        run={call("revoke")}
        onDone={revalidate}
        successMessage="Device revoked"
      />
    </div>
  );
}

export default function AdminSubscription({ loaderData }: Route.ComponentProps) {
  const { subscription, history, payments, devices, emails } = loaderData;
  return (
    <section className="px-4 py-8 md:px-8">
      <p className="text-sm">
        <Link to="/admin/subscriptions" className="underline">
          Subscriptions
        </Link>
      </p>
      <h1 className="mt-2 text-2xl font-bold">Subscription {subscription.orderNumber}</h1>
      <dl className="mt-4 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="font-medium">Customer e-mail</dt>
        <dd>{subscription.customerEmail ? <EmailAddress address={subscription.customerEmail} /> : "—"}</dd>
        <dt className="font-medium">Plan</dt>
        <dd>
          {subscription.planName} ({subscription.deviceLimit} device
          {subscription.deviceLimit === 1 ? "" : "s"})
        </dd>
        <dt className="font-medium">Status</dt>
        <dd>
          <Badge data-testid="subscription-status">{subscription.status}</Badge>
          {subscription.cancelAtPeriodEnd ? " · cancels at period end" : ""}
        </dd>
        <dt className="font-medium">Paid until</dt>
        <dd>{when(subscription.expiresAt)}</dd>
        <dt className="font-medium">Bought</dt>
        <dd>
          {when(subscription.createdAt)} ·{" "}
          {subscription.provider === "stripe" ? "Stripe" : "built-in checkout"}
        </dd>
        {subscription.stripeSubscriptionId ? (
          <>
            <dt className="font-medium">Stripe</dt>
            <dd className="font-mono">
              {subscription.stripeSubscriptionId} · {subscription.stripeCustomerId}
            </dd>
          </>
        ) : null}
      </dl>
      <SubscriptionActions subscription={subscription} />
      <PlanChangeAction page={loaderData} />

      <Section title="Devices">
        {devices.length === 0 ? <p className="text-sm text-muted-foreground">None.</p> : null}
        <ul className="grid gap-3 lg:grid-cols-2">
          {devices.map((device) => (
            <li key={device.id} id={`device-${device.id}`} className="rounded-lg border p-4 text-sm">
              <h3 className="font-semibold">
                {device.name} <span className="font-normal text-muted-foreground">(slot {device.slot})</span>
              </h3>
              <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1">
                <dt className="text-muted-foreground">Server</dt>
                <dd>{device.server ?? "—"}</dd>
                <dt className="text-muted-foreground">Addresses</dt>
                <dd className="break-all font-mono text-xs">
                  {device.ipv4} · {device.ipv6}
                </dd>
                <dt className="text-muted-foreground">Created</dt>
                <dd>{when(device.createdAt)}</dd>
                <dt className="text-muted-foreground">Activated</dt>
                <dd>
                  {device.activatedAt ? `${when(device.activatedAt)} (${device.activatedVia})` : "Not yet"}
                </dd>
                <dt className="text-muted-foreground">Last handshake</dt>
                <dd>{when(device.lastHandshakeAt)}</dd>
              </dl>
              <div className="mt-3">
                <DeviceActions device={device} />
              </div>
            </li>
          ))}
        </ul>
      </Section>

      <Section title="Status history">
        <Table
          head={["When", "Status", "Paid until", "Cancels at period end"]}
          rows={history.map((event) => [
            when(event.at),
            event.status,
            when(event.expiresAt),
            event.cancelAtPeriodEnd ? "Yes" : "No",
          ])}
        />
      </Section>

      <Section title="Payments">
        <Table
          head={["When", "What", "Amount", "Reference"]}
          rows={payments.map((payment) => [
            when(payment.at),
            payment.kind,
            formatMoney(payment.amountCents, payment.currency),
            <span key="r" className="font-mono text-xs">
              {payment.reference ?? "—"}
            </span>,
          ])}
        />
      </Section>

      <Section title="E-mails to the customer">
        <Table
          head={["Queued", "Kind", "Status", "Sent"]}
          rows={emails.map((email) => [when(email.createdAt), email.kind, email.status, when(email.sentAt)])}
        />
      </Section>
    </section>
  );
}
