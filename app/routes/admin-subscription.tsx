import { EmailAddress } from "#app/components/ui/email-address.tsx";
import { formatDateTimeUtc, formatMoney } from "#core/format.ts";
import { data, Link } from "react-router";
import { ScrollRegion } from "#app/components/ui/scroll-region.tsx";
import { ActionNotice } from "#app/components/admin/action-notice.tsx";
import { DemoBadge } from "#app/components/admin/demo-badge.tsx";
import { DeviceCard } from "#app/components/admin/device-card.tsx";
import { PlanChangeAction } from "#app/components/admin/plan-change-action.tsx";
import { SubscriptionActions } from "#app/components/admin/subscription-actions.tsx";
import { displayStateOf, SubscriptionStatusBadge } from "#app/components/subscription-status-badge.tsx";
import { adminPageMeta } from "#app/lib/meta.ts";
import { NOTICE_CLASS } from "#app/lib/notice.ts";
import { DomainError } from "#server/domain/errors.ts";
import { subscriptionPage } from "#server/domain/ops/subscription-page.ts";
import { staffIntentAction } from "#server/http/staff-form.ts";
import { requireStaffPage } from "#server/http/staff-pages.ts";
import { subscriptionIntents } from "./admin-subscription-actions.server.ts";
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

/** The subscription's and its devices' actions, each as its /api/admin/* endpoint does it. */
export const action = ({ request, context, params }: Route.ActionArgs) =>
  staffIntentAction({ request, context, params }, "admin", subscriptionIntents(context.services));

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

export default function AdminSubscription({ loaderData, actionData }: Route.ComponentProps) {
  const { subscription, actions, history, payments, awaitingPayments, devices, emails } = loaderData;
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
          <SubscriptionStatusBadge state={displayStateOf(subscription)} data-testid="subscription-status" />
          {subscription.cancelAtPeriodEnd ? " · cancels at period end" : ""}
        </dd>
        <dt className="font-medium">Paid until</dt>
        <dd>{when(subscription.expiresAt)}</dd>
        <dt className="font-medium">Bought</dt>
        <dd>
          {when(subscription.createdAt)} ·{" "}
          {subscription.provider === "stripe" ? "Stripe" : "built-in checkout"}
          <DemoBadge provider={subscription.provider} />
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
      {subscription.demoPurchase ? (
        <p className={NOTICE_CLASS.status} data-testid="demo-purchase-note">
          {subscription.demoPurchase}
        </p>
      ) : null}
      <ActionNotice answer={actionData} />
      <SubscriptionActions subscriptionId={subscription.id} actions={actions} />
      <PlanChangeAction page={loaderData} />

      <Section title="Devices">
        {devices.length === 0 ? <p className="text-sm text-muted-foreground">None.</p> : null}
        <ul className="grid gap-3 lg:grid-cols-2">
          {devices.map((device) => (
            <DeviceCard key={device.id} device={device} />
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
          head={["When", "What", "Order", "Amount", "Reference"]}
          rows={[
            ...awaitingPayments.map((awaiting) => [
              when(awaiting.at),
              <span key="w" data-testid="awaiting-payment">
                {awaiting.kind} — awaiting payment
              </span>,
              <span key="o" className="font-mono text-xs">
                {awaiting.orderNumber}
              </span>,
              formatMoney(awaiting.amountCents, awaiting.currency),
              "Stripe invoice not paid yet",
            ]),
            ...payments.map((payment) => [
              when(payment.at),
              payment.kind,
              <span key="o" className="font-mono text-xs">
                {payment.orderNumber}
              </span>,
              `${payment.sign < 0 ? "−" : ""}${formatMoney(payment.amountCents, payment.currency)}`,
              <span key="r" className="font-mono text-xs">
                {payment.reference ?? "—"}
              </span>,
            ]),
          ]}
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
