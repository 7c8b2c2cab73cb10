// The payment history of the signed-in customer's plans (demo: what Stripe's portal would show).
import { Link, redirect } from "react-router";
import { Card, CardContent, CardHeader } from "#app/components/ui/card.tsx";
import { BillingHistoryTable } from "#app/components/account/billing-history-table.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { accountBillingHistory } from "#server/domain/account/billing.ts";
import { customerOf } from "#server/domain/account/customer-auth.ts";
import type { Route } from "./+types/account-billing";

export const meta: Route.MetaFunction = ({ matches }) => [
  ...pageMeta(
    { title: "Payments and invoices", description: "Your NaijaLink payments.", path: "/account" },
    matches,
  ),
  { name: "robots", content: "noindex" },
];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { services } = context;
  const customer = await customerOf(services.customerAuth, request);
  if (!customer) throw redirect("/account");
  return { email: customer.email, entries: await accountBillingHistory(services, customer) };
}

export default function AccountBilling({ loaderData }: Route.ComponentProps) {
  return (
    <section className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-12">
      <Card>
        <CardHeader>
          <h1 className="text-2xl font-bold">Payments and invoices</h1>
          <p className="break-all text-sm text-muted-foreground">For {loaderData.email}</p>
        </CardHeader>
        <CardContent className="flex flex-col gap-4">
          <BillingHistoryTable entries={loaderData.entries} />
          <p className="text-sm text-muted-foreground">
            Plans bought in this store&apos;s test checkout are paid once per order; there is no saved card to
            change. A question about a payment?{" "}
            <Link to="/contact" className="font-medium text-primary underline underline-offset-2">
              Contact support
            </Link>
            .
          </p>
        </CardContent>
      </Card>
      <Link to="/account" className="font-medium text-primary underline underline-offset-2">
        Back to your account
      </Link>
    </section>
  );
}
