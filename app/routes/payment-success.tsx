import { CheckCircle2, Clock, Plus, XCircle } from "lucide-react";
import { Link, useSearchParams } from "react-router";
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
import { Button } from "#app/components/ui/button.tsx";
import { addDeviceRefusal, addDeviceRefusalMessage } from "#core/device-actions.ts";
import { pageMeta } from "#app/lib/meta.ts";
import type { VerificationResponse } from "#app/components/purchase/verification.ts";
import { verificationAnswer } from "#server/http/payment-verification.ts";
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

export default function PaymentSuccess({ loaderData }: Route.ComponentProps) {
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
      {addRefusal === null ? (
        <Button variant="outline" onClick={addDevice} disabled={adding}>
          <Plus aria-hidden="true" />
          {adding ? "Adding..." : "Add another device"}
        </Button>
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
