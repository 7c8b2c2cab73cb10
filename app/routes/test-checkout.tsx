import { Lock } from "lucide-react";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import { formatUsd } from "#core/format.ts";
import { Badge } from "#app/components/ui/badge.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Card, CardContent, CardHeader } from "#app/components/ui/card.tsx";
import { Input, Label } from "#app/components/ui/input.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { usesTestCheckout } from "#server/config.ts";
import { loadTestCheckout, payTestCheckout } from "#server/domain/billing/test-checkout.ts";
import type { Route } from "./+types/test-checkout";

export const meta: Route.MetaFunction = ({ matches }) => [
  ...pageMeta({ title: "Checkout", description: "Pay for your NaijaLink plan.", path: "/checkout" }, matches),
  { name: "robots", content: "noindex" },
];

export async function loader({ params, context }: Route.LoaderArgs) {
  const checkout = await loadTestCheckout(context.services, params.sessionId);
  if (!checkout) throw data("This checkout session does not exist.", { status: 404 });
  if (checkout.paid) throw redirect(checkout.returnTo);
  return {
    sessionId: checkout.sessionId,
    planName: checkout.plan.name,
    period: checkout.plan.period,
    amount: formatUsd(checkout.amountCents),
    customerEmail: checkout.customerEmail,
  };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  if (!usesTestCheckout(context.services.config))
    throw data("This checkout session does not exist.", { status: 404 });
  const form = await request.formData();
  const field = (name: string) => String(form.get(name) ?? "").slice(0, 40);
  const result = await payTestCheckout(context.services, params.sessionId, {
    cardNumber: field("cardNumber"),
    expiry: field("expiry"),
    cvc: field("cvc"),
  });
  switch (result.outcome) {
    case "paid":
      return redirect(result.returnTo);
    case "unknown-session":
      throw data("This checkout session does not exist.", { status: 404 });
    case "declined":
      return data({ error: result.message, fieldErrors: {} }, { status: 402 });
    case "invalid":
      return data({ error: null, fieldErrors: result.errors }, { status: 400 });
  }
}

export default function TestCheckout({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const paying = navigation.state !== "idle" && navigation.formMethod === "POST";
  const fieldErrors: Record<string, string | undefined> = actionData?.fieldErrors ?? {};
  const cardFields = [
    {
      name: "cardNumber",
      label: "Card number",
      placeholder: "4242 4242 4242 4242",
      autoComplete: "cc-number",
    },
    { name: "expiry", label: "Expiry (MM/YY)", placeholder: "12/34", autoComplete: "cc-exp" },
    { name: "cvc", label: "CVC", placeholder: "123", autoComplete: "cc-csc" },
  ];
  return (
    <section className="px-4 py-12">
      <div className="mx-auto max-w-md">
        <Card>
          <CardHeader className="gap-2">
            <Badge variant="warning" className="w-fit">
              Test mode
            </Badge>
            <h1 className="text-2xl font-bold">Checkout</h1>
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="text-muted-foreground">Plan</dt>
              <dd data-testid="checkout-plan">{loaderData.planName}</dd>
              <dt className="text-muted-foreground">Amount</dt>
              <dd data-testid="checkout-amount" className="font-semibold">
                {loaderData.amount} {loaderData.period === "one-time" ? "one-time" : loaderData.period}
              </dd>
              <dt className="text-muted-foreground">E-mail</dt>
              <dd data-testid="checkout-email">{loaderData.customerEmail ?? "Not given"}</dd>
            </dl>
          </CardHeader>
          <CardContent>
            <Form method="post" className="flex flex-col gap-4" aria-label="Card payment">
              {cardFields.map((input) => (
                <div key={input.name} className="flex flex-col gap-2">
                  <Label htmlFor={input.name}>{input.label}</Label>
                  <Input
                    id={input.name}
                    name={input.name}
                    inputMode="numeric"
                    autoComplete={input.autoComplete}
                    placeholder={input.placeholder}
                    aria-invalid={fieldErrors[input.name] ? true : undefined}
                    aria-describedby={fieldErrors[input.name] ? `${input.name}-error` : undefined}
                  />
                  {fieldErrors[input.name] ? (
                    <p id={`${input.name}-error`} className="text-sm text-destructive">
                      {fieldErrors[input.name]}
                    </p>
                  ) : null}
                </div>
              ))}
              {actionData?.error ? (
                <p role="alert" className="rounded-md bg-red-50 p-3 text-sm font-medium text-red-800">
                  {actionData.error}
                </p>
              ) : null}
              <Button type="submit" size="lg" disabled={paying}>
                <Lock aria-hidden="true" />
                {paying ? "Processing..." : `Pay ${loaderData.amount}`}
              </Button>
              <Button asChild variant="ghost">
                <Link to="/get-started/payment">Cancel</Link>
              </Button>
              <p className="text-xs text-muted-foreground">
                Built-in test checkout: card 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined. Use
                any future expiry and any CVC.
              </p>
            </Form>
          </CardContent>
        </Card>
      </div>
    </section>
  );
}
