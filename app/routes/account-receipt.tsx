// A plain receipt for a plan the built-in checkout sold (demo); Stripe's portal holds the rest.
import { Link, redirect } from "react-router";
import { Card, CardContent, CardHeader } from "#app/components/ui/card.tsx";
import { formatLongDate, formatMoney } from "#core/format.ts";
import { pageMeta } from "#app/lib/meta.ts";
import { accountReceipt } from "#server/domain/account/billing.ts";
import { customerOf } from "#server/domain/account/customer-auth.ts";
import { DomainError } from "#server/domain/errors.ts";
import type { Route } from "./+types/account-receipt";

export const meta: Route.MetaFunction = ({ matches }) => [
  ...pageMeta({ title: "Receipt", description: "Your NaijaLink receipt.", path: "/account" }, matches),
  { name: "robots", content: "noindex" },
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { services } = context;
  const customer = await customerOf(services.customerAuth, request);
  if (!customer) throw redirect("/account");
  const notFound = () => new Response("There is no such receipt in your account.", { status: 404 });
  if (!UUID.test(params.subscriptionId)) throw notFound();
  try {
    const order = new URL(request.url).searchParams.get("order") ?? undefined;
    const found = await accountReceipt(services, customer, params.subscriptionId, order);
    return { ...found, paidAt: found.paidAt.toISOString() };
  } catch (error) {
    if (error instanceof DomainError && error.kind === "not-found") throw notFound();
    throw error;
  }
}

export default function AccountReceipt({ loaderData: receipt }: Route.ComponentProps) {
  return (
    <section className="mx-auto flex max-w-xl flex-col gap-6 px-4 py-12">
      <Card>
        <CardHeader>
          <h1 className="text-2xl font-bold">Receipt</h1>
        </CardHeader>
        <CardContent>
          <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm" data-testid="receipt">
            <dt className="text-muted-foreground">Order number</dt>
            <dd data-testid="order-number">{receipt.orderNumber}</dd>
            <dt className="text-muted-foreground">Plan</dt>
            <dd>{receipt.planName}</dd>
            <dt className="text-muted-foreground">Amount paid</dt>
            <dd data-testid="amount-paid">{formatMoney(receipt.amountCents, receipt.currency)}</dd>
            <dt className="text-muted-foreground">Paid on</dt>
            <dd>{formatLongDate(receipt.paidAt)}</dd>
            {receipt.customerEmail ? (
              <>
                <dt className="text-muted-foreground">E-mail</dt>
                <dd className="break-all">{receipt.customerEmail}</dd>
              </>
            ) : null}
          </dl>
        </CardContent>
      </Card>
      <Link to="/account" className="font-medium text-primary underline underline-offset-2">
        Back to your account
      </Link>
    </section>
  );
}
