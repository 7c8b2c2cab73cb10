import { CheckCircle2, Clock, Plus, XCircle } from "lucide-react";
import { data, Form, Link, redirect, useSearchParams } from "react-router";
import { AddDeviceRefusalNote } from "#app/components/purchase/add-device-refusal-note.tsx";
import { ConfigCard } from "#app/components/purchase/config-card.tsx";
import { ReversedOrderNotice } from "#app/components/purchase/reversed-order.tsx";
import {
  AccountLink,
  PlanDetails,
  PrivateLinkNote,
  StatusSection,
} from "#app/components/purchase/success-parts.tsx";
import { usePaymentVerification } from "#app/components/purchase/use-payment-verification.tsx";
import { FlashNotice } from "#app/components/flash-notice.tsx";
import { MessageWithAccountLink } from "#app/components/message-with-account-link.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { addDeviceRefusal, addDeviceRefusalMessage } from "#core/device-actions.ts";
import { pageMeta } from "#app/lib/meta.ts";
import type { VerificationResponse } from "#app/components/purchase/verification.ts";
import { ApiError } from "#server/http/api.ts";
import { flashCookie } from "#server/http/flash.ts";
import { addDeviceFromSuccessPage, verificationAnswer } from "#server/http/payment-verification.ts";
import { readAccountForm } from "./account/changes.ts";
import type { Route } from "./+types/payment-success";

export const meta: Route.MetaFunction = ({ matches }) => [
  ...pageMeta({ title: "Payment", description: "Your NaijaLink order.", path: "/payment-success" }, matches),
  { name: "robots", content: "noindex" },
];

/** Seconds between the reloads of Configuration Pending without JavaScript. */
const PENDING_REFRESH_SECONDS = 5;

/**
 * The verification, on the server: the page renders its answer, so it works without JavaScript
 * (the script starts from it, and asks again only to poll or to add a device).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const sessionId = new URL(request.url).searchParams.get("session_id");
  if (!sessionId || sessionId.length > 255) return { verification: null };
  const answer = await verificationAnswer(request, context, { sessionId });
  return { verification: answer.body as unknown as VerificationResponse };
}

/** A refusal of the posted form, shown under its button. */
const refused = (error: string, message: string, status: number, headers: Record<string, string> = {}) =>
  data({ refusal: { error, message } }, { status, headers });

/**
 * "Add another device" without JavaScript: the form posts here, the device is added under the same
 * rules as the script's request (the paying browser's cookie, or its owner signed in), and the
 * page is shown again with the new config; a refusal is shown under the button.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const sessionId = new URL(request.url).searchParams.get("session_id");
  const form = await readAccountForm(request);
  if (form instanceof ApiError) return refused(form.error, form.message, form.status);
  if (!sessionId || sessionId.length > 255 || form.get("intent") !== "add-device")
    return refused("Bad request", "This form adds a device to an order: open it from the order's page.", 400);
  const result = await addDeviceFromSuccessPage(request, context, sessionId);
  if (result.outcome === "refused")
    return refused(result.error, result.message, result.status, result.headers);
  const page = `/payment-success?${new URLSearchParams({ session_id: sessionId })}`;
  if (result.outcome === "reversed") throw redirect(page);
  const added = {
    type: "success" as const,
    title: "Device Added",
    description: `The config for device ${result.slot} is ready.`,
  };
  throw redirect(page, { headers: { "Set-Cookie": flashCookie(context.services, added) } });
}

export default function PaymentSuccess({ loaderData, actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const { view, adding, gaveUp, addDevice } = usePaymentVerification(
    searchParams.get("session_id"),
    loaderData.verification,
  );

  if (view.state === "verifying") {
    return (
      <StatusSection icon={<Clock aria-hidden="true" className="size-12 animate-pulse text-primary" />}>
        <h1 className="text-3xl font-bold">Verifying Payment</h1>
        <p className="text-muted-foreground" role="status">
          Please wait while we confirm your payment and prepare your configuration...
        </p>
      </StatusSection>
    );
  }

  if (view.state === "reversed") {
    return (
      <StatusSection icon={null}>
        <ReversedOrderNotice order={view.order} />
      </StatusSection>
    );
  }

  if (view.state === "invalid") {
    return (
      <StatusSection icon={<XCircle aria-hidden="true" className="size-12 text-destructive" />}>
        <h1 className="text-3xl font-bold">Invalid Payment Session</h1>
        <p className="text-muted-foreground">
          We could not confirm a payment for this page. If you were charged, our support team will sort it
          out.
        </p>
        <div className="flex flex-wrap justify-center gap-3">
          <Button asChild>
            <Link to="/pricing">View Plans</Link>
          </Button>
          <Button asChild variant="outline">
            <Link to="/contact">Contact Support</Link>
          </Button>
        </div>
      </StatusSection>
    );
  }

  const { subscription, configs } = view;
  const multiDevice = subscription.deviceLimit > 1;
  const addRefusal = addDeviceRefusal({
    usable: true,
    deviceLimit: subscription.deviceLimit,
    liveDevices: subscription.activeDevices,
    mayClaimSlot: view.mayClaimSlot,
    roomForDevice: view.roomForDevice,
  });
  if (configs.length === 0) {
    return (
      <StatusSection icon={<Clock aria-hidden="true" className="size-12 text-primary" />}>
        <h1 className="text-3xl font-bold">Configuration Pending</h1>
        <p className="text-muted-foreground" role="status" data-testid="pending-note">
          {pendingNote(gaveUp, view.configEmailed)}
        </p>
        {/* Without JavaScript nothing polls: the page reloads itself until the config is ready. */}
        <noscript>
          <meta httpEquiv="refresh" content={String(PENDING_REFRESH_SECONDS)} />
        </noscript>
        <PlanDetails subscription={subscription} />
        <AccountLink />
        <PrivateLinkNote />
      </StatusSection>
    );
  }

  return (
    <StatusSection icon={<CheckCircle2 aria-hidden="true" className="size-12 text-primary" />}>
      <h1 className="text-3xl font-bold">Payment Successful!</h1>
      <FlashNotice testId="success-notice" />
      <p className="text-muted-foreground">
        Import the config into the WireGuard app (Add Tunnel), switch it on and visit Nigerian sites.
        {view.configEmailed ? " A copy is on its way to your e-mail." : null}
      </p>
      <PlanDetails subscription={subscription} />
      <div className="flex w-full flex-col gap-4">
        {configs.map((config) => (
          <ConfigCard key={config.configSlot} config={config} multiDevice={multiDevice} />
        ))}
      </div>
      {actionData?.refusal ? (
        <p role="alert" className="text-sm text-destructive" data-testid="add-device-error">
          <MessageWithAccountLink text={actionData.refusal.message} />
        </p>
      ) : null}
      {addRefusal === null ? (
        // A form for the browser without JavaScript; the script asks verify-payment itself instead.
        <Form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void addDevice();
          }}
        >
          <input type="hidden" name="intent" value="add-device" />
          <Button type="submit" variant="outline" disabled={adding}>
            <Plus aria-hidden="true" />
            {adding ? "Adding..." : "Add another device"}
          </Button>
        </Form>
      ) : (
        <AddDeviceRefusalNote
          message={addDeviceRefusalMessage(addRefusal, subscription.deviceLimit, "success")}
        />
      )}
      <Button asChild variant="link">
        <Link to="/tutorial">How to set up WireGuard</Link>
      </Button>
      <Button asChild variant="link">
        <Link to="/check">Am I connected through Nigeria?</Link>
      </Button>
      <AccountLink />
      <PrivateLinkNote />
    </StatusSection>
  );
}

/** Configuration Pending's promise: by e-mail only when the order has an address to send it to. */
function pendingNote(gaveUp: boolean, emailed: boolean): string {
  if (gaveUp)
    return emailed
      ? "Your payment is confirmed. Your configuration is still being prepared: it will arrive by e-mail, and this page shows it when you open it again."
      : "Your payment is confirmed. Your configuration is still being prepared: this page shows it when you open it again.";
  return emailed
    ? "Your payment is confirmed. Your configuration is being prepared: this page shows it as soon as it is ready, and it also arrives by e-mail."
    : "Your payment is confirmed. Your configuration is being prepared: this page shows it as soon as it is ready.";
}
