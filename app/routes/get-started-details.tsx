import { useEffect, useRef, useState, type FormEvent } from "react";
import { Form, Link } from "react-router";
import { FormRefusalNote } from "#app/components/purchase/form-refusal-note.tsx";
import { OrdersPaused } from "#app/components/purchase/orders-paused.tsx";
import { PlanSummary } from "#app/components/purchase/plan-summary.tsx";
import { PurchaseStepPage } from "#app/components/purchase/purchase-steps.tsx";
import { useStoredPurchase } from "#app/components/purchase/use-purchase-storage.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Card, CardContent, CardHeader, CardTitle } from "#app/components/ui/card.tsx";
import { Input, Label } from "#app/components/ui/input.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import {
  hasRequiredDetails,
  normaliseSubscriberDetails,
  storeSubscriberDetails,
  type SubscriberDetails,
} from "#app/lib/purchase-storage.ts";
import { findPlan } from "#core/plans.ts";
import { detailsAction, purchaseStepState } from "./get-started-choice.server.ts";
import type { Route } from "./+types/get-started-details";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    {
      title: "Your Details",
      description: "Step 2 of 3: tell us where to send your config.",
      path: "/get-started/details",
    },
    matches,
  );

const EMPTY: SubscriberDetails = { firstName: "", lastName: "", email: "", phone: "", country: "", city: "" };

const FIELDS: Array<{
  name: keyof SubscriberDetails;
  label: string;
  type: string;
  autoComplete: string;
  required?: boolean;
}> = [
  { name: "firstName", label: "First Name", type: "text", autoComplete: "given-name", required: true },
  { name: "lastName", label: "Last Name", type: "text", autoComplete: "family-name", required: true },
  { name: "email", label: "Email Address", type: "email", autoComplete: "email", required: true },
  { name: "phone", label: "Phone Number", type: "tel", autoComplete: "tel" },
  { name: "country", label: "Country", type: "text", autoComplete: "country-name" },
  { name: "city", label: "City", type: "text", autoComplete: "address-level2" },
];

export function loader({ request, context }: Route.LoaderArgs) {
  return purchaseStepState(request, context);
}

/** The details, with the plan chosen before: kept for the payment step. */
export function action({ request, context }: Route.ActionArgs) {
  return detailsAction(request, context);
}

export default function GetStartedDetails({ loaderData, actionData }: Route.ComponentProps) {
  const stored = useStoredPurchase();
  // localStorage once read (after hydration), else what the server kept for this browser.
  const cookiePlan = findPlan(loaderData.chosenPlanId) ?? null;
  const plan = stored.ready ? (stored.plan ?? cookiePlan) : cookiePlan;
  const ready = stored.ready || cookiePlan !== null;
  const [serverForm] = useState<SubscriberDetails>(loaderData.details ?? EMPTY);
  const [form, setForm] = useState<SubscriberDetails>(serverForm);
  // The inputs are controlled: the first render after hydration would clear what the buyer typed
  // before the script loaded, so that is read from the page first and wins over localStorage.
  const formElement = useRef<HTMLFormElement>(null);
  const typedBeforeHydration = useRef(false);
  useEffect(() => {
    const fields = formElement.current?.elements;
    if (!fields) return;
    const typed = { ...serverForm };
    for (const field of FIELDS) {
      const input = fields.namedItem(field.name);
      if (input instanceof HTMLInputElement) typed[field.name] = input.value;
    }
    if (FIELDS.some((field) => typed[field.name] !== serverForm[field.name])) {
      typedBeforeHydration.current = true;
      setForm(typed);
    }
  }, [serverForm]);
  useEffect(() => {
    if (stored.details && !typedBeforeHydration.current) setForm(stored.details);
  }, [stored.details]);

  // With JavaScript the page's alert speaks first; a complete form is also kept in localStorage,
  // then posted like the form without JavaScript.
  function submit(event: FormEvent<HTMLFormElement>) {
    const cleaned = normaliseSubscriberDetails(form)!;
    if (!hasRequiredDetails(cleaned)) {
      event.preventDefault();
      window.alert("Please fill in all required fields");
      return;
    }
    storeSubscriberDetails(cleaned);
  }

  if (loaderData.ordersPaused)
    return (
      <PurchaseStepPage step={2} title="Your Details" intro="New orders are paused for now.">
        <OrdersPaused />
      </PurchaseStepPage>
    );

  return (
    <PurchaseStepPage step={2} title="Your Details" intro="Tell us where to send your VPN config.">
      <div className="grid gap-8 md:grid-cols-[2fr_1fr]">
        <Card>
          <CardHeader>
            <CardTitle>Subscriber Information</CardTitle>
          </CardHeader>
          <CardContent>
            <Form
              ref={formElement}
              method="post"
              onSubmit={submit}
              className="grid gap-4 sm:grid-cols-2"
              aria-label="Your details"
            >
              <input type="hidden" name="planId" value={plan?.id ?? ""} />
              {FIELDS.map((field) => (
                <div key={field.name} className="flex flex-col gap-2">
                  <Label htmlFor={field.name}>
                    {field.label}
                    {field.required ? <span aria-hidden="true"> *</span> : null}
                  </Label>
                  <Input
                    id={field.name}
                    name={field.name}
                    type={field.type}
                    autoComplete={field.autoComplete}
                    aria-required={field.required || undefined}
                    value={form[field.name]}
                    onChange={(event) =>
                      setForm((current) => ({ ...current, [field.name]: event.target.value }))
                    }
                  />
                </div>
              ))}
              <div className="flex flex-col-reverse gap-3 pt-2 sm:col-span-2 sm:flex-row sm:justify-between">
                <Button asChild variant="outline">
                  <Link to="/get-started">Back to Plan Selection</Link>
                </Button>
                <Button type="submit">Continue to Payment</Button>
              </div>
              {actionData ? (
                <div className="sm:col-span-2">
                  <FormRefusalNote message={actionData.message} />
                </div>
              ) : null}
            </Form>
          </CardContent>
        </Card>
        <PlanSummary ready={ready} plan={plan} />
      </div>
    </PurchaseStepPage>
  );
}
