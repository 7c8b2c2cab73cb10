import { Lock } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { Form, Link, useNavigate, useRevalidator } from "react-router";
import { FormRefusalNote } from "#app/components/purchase/form-refusal-note.tsx";
import { OrdersPaused } from "#app/components/purchase/orders-paused.tsx";
import { toast } from "sonner";
import { OrderSummary } from "#app/components/purchase/order-summary.tsx";
import {
  isComingSoon,
  PaymentMethods,
  type PaymentMethod,
} from "#app/components/purchase/payment-methods.tsx";
import { PurchaseStepPage } from "#app/components/purchase/purchase-steps.tsx";
import { useStoredPurchase } from "#app/components/purchase/use-purchase-storage.ts";
import { Button } from "#app/components/ui/button.tsx";
import { Card, CardContent, CardHeader, CardTitle } from "#app/components/ui/card.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { hasRequiredDetails } from "#app/lib/purchase-storage.ts";
import { findPlan } from "#core/plans.ts";
import { paymentAction, purchaseStepState } from "./get-started-choice.server.ts";
import type { Route } from "./+types/get-started-payment";

export const meta: Route.MetaFunction = ({ matches }) =>
  pageMeta(
    { title: "Payment", description: "Step 3 of 3: pay securely by card.", path: "/get-started/payment" },
    matches,
  );

export function loader({ request, context }: Route.LoaderArgs) {
  return purchaseStepState(request, context);
}

/** Complete Payment without JavaScript: the checkout starts here, then the browser goes there. */
export function action({ request, context }: Route.ActionArgs) {
  return paymentAction(request, context);
}

/** The checkout's URL, or "paused" when the store stopped taking orders since this page loaded. */
async function startCheckout(
  planId: string,
  customerEmail: string,
  customerName: string | null,
): Promise<string | "paused"> {
  const response = await fetch("/api/create-checkout", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ planId, customerEmail, customerName }),
  });
  const body = (await response.json().catch(() => null)) as { url?: unknown; message?: unknown } | null;
  if (response.status === 503) return "paused";
  if (!response.ok)
    throw new Error(typeof body?.message === "string" ? body.message : `HTTP ${response.status}`);
  if (typeof body?.url !== "string" || !body.url) throw new Error("No checkout URL received");
  return body.url;
}

export default function GetStartedPayment({ loaderData, actionData }: Route.ComponentProps) {
  const stored = useStoredPurchase();
  // localStorage once read (after hydration), else what the server kept for this browser.
  const cookiePlan = findPlan(loaderData.chosenPlanId) ?? null;
  const plan = stored.ready ? (stored.plan ?? cookiePlan) : cookiePlan;
  const ready = stored.ready || cookiePlan !== null;
  const details = stored.details && hasRequiredDetails(stored.details) ? stored.details : loaderData.details;
  const navigate = useNavigate();
  const revalidator = useRevalidator();
  const [method, setMethod] = useState<PaymentMethod | null>("card");
  // Uncontrolled, so a box ticked before the script loaded stays ticked once it has (a controlled
  // box would be reset to the state's "false" by the first render after hydration).
  const agreeBox = useRef<HTMLInputElement>(null);
  const [agreed, setAgreed] = useState(false);
  const [processing, setProcessing] = useState(false);
  // Until hydration the button is a plain submit button: without JavaScript the server answers.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => {
    setAgreed(agreeBox.current?.checked ?? false);
    setHydrated(true);
  }, []);
  // docs/product.md §4.3: unavailable without a method, with a coming-soon method, or with the terms unticked.
  // It stays focusable (aria-disabled) so a click can say why in a toast (decision 054).
  const blocked = hydrated && (!method || isComingSoon(method) || !agreed);

  // With JavaScript the page starts the checkout itself (its toasts); without, the form posts.
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void completePayment();
  }

  async function completePayment() {
    if (processing) return;
    if (!agreed) {
      toast.error("Terms Required", {
        description: "Please agree to the 7-day guarantee policy to continue",
      });
      return;
    }
    if (!plan) {
      toast.error("Plan Required", { description: "Please select a plan first" });
      return;
    }
    if (!method || isComingSoon(method)) return;
    // The receipt and the config go to the e-mail from the details step: no checkout starts without it.
    if (!details || !hasRequiredDetails(details)) {
      toast.error("Details Required", { description: "Please fill in all required fields" });
      navigate("/get-started/details");
      return;
    }
    setProcessing(true);
    try {
      const name = `${details.firstName} ${details.lastName}`.trim();
      const url = await startCheckout(plan.id, details.email, name || null);
      if (url === "paused") {
        // The loader reads the sales state again: the page becomes the "Orders are paused" notice.
        await revalidator.revalidate();
        setProcessing(false);
        return;
      }
      window.location.assign(url);
    } catch (error) {
      console.error("checkout failed:", error instanceof Error ? error.message : error);
      toast.error("Payment Error", { description: "Unable to start checkout process. Please try again." });
      setProcessing(false);
    }
  }

  if (loaderData.ordersPaused)
    return (
      <PurchaseStepPage step={3} title="Payment" intro="New orders are paused for now.">
        <OrdersPaused />
      </PurchaseStepPage>
    );

  return (
    <PurchaseStepPage step={3} title="Payment" intro="Pay securely by card on our hosted checkout.">
      <div className="grid gap-8 md:grid-cols-[2fr_1fr]">
        <Card>
          <CardHeader>
            <CardTitle>Payment Method</CardTitle>
          </CardHeader>
          <Form method="post" onSubmit={submit} aria-label="Payment">
            <CardContent className="flex flex-col gap-6">
              <PaymentMethods value={method} onChange={setMethod} />
              <input type="hidden" name="planId" value={plan?.id ?? ""} />
              <input type="hidden" name="customerEmail" value={details?.email ?? ""} />
              <input
                type="hidden"
                name="customerName"
                value={details ? `${details.firstName} ${details.lastName}`.trim() : ""}
              />
              <label className="flex items-start gap-3 text-sm">
                <input
                  type="checkbox"
                  name="agree"
                  value="yes"
                  className="mt-0.5 size-4 accent-[var(--color-primary)]"
                  ref={agreeBox}
                  defaultChecked={false}
                  onChange={(event) => setAgreed(event.target.checked)}
                />
                <span>
                  I agree to the{" "}
                  <Link to="/terms" className="underline">
                    Terms and Conditions
                  </Link>{" "}
                  and the 7-day guarantee policy (
                  <Link to="/refund-policy" className="underline">
                    Refund Policy
                  </Link>
                  ).
                </span>
              </label>
              <p className="flex items-center gap-2 text-sm text-muted-foreground">
                <Lock aria-hidden="true" className="size-4" /> 256-bit SSL encrypted payment
              </p>
              <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-between">
                <Button asChild variant="outline">
                  <Link to="/get-started/details">Back to Details</Link>
                </Button>
                <Button
                  type="submit"
                  size="lg"
                  disabled={processing}
                  aria-disabled={blocked || undefined}
                  className={blocked ? "cursor-not-allowed opacity-50" : undefined}
                >
                  {processing ? "Processing..." : "Complete Payment"}
                </Button>
              </div>
              {actionData ? (
                <FormRefusalNote
                  title={actionData.message.includes("7-day guarantee") ? "Terms Required" : "Error"}
                  message={actionData.message}
                />
              ) : null}
            </CardContent>
          </Form>
        </Card>
        <OrderSummary ready={ready} plan={plan} />
      </div>
    </PurchaseStepPage>
  );
}
