import { CheckCircle2, Clock, LockKeyhole, Plus, UserRound, XCircle } from "lucide-react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { Link, useSearchParams } from "react-router";
import { toast } from "sonner";
import { MessageWithAccountLink } from "#app/components/message-with-account-link.tsx";
import { AddDeviceRefusalNote } from "#app/components/purchase/add-device-refusal-note.tsx";
import { ConfigCard, type IssuedConfig } from "#app/components/purchase/config-card.tsx";
import { usePendingConfigurationPoll } from "#app/components/purchase/pending-configuration.ts";
import {
  configsOf,
  dateLabel,
  DEVICE_LIMIT_ERROR,
  NO_ROOM_ERROR,
  PAYING_BROWSER_ERROR,
  RATE_LIMITED_ERROR,
  requestVerification,
  reversedOrderOf,
  type ReversedOrder,
  type VerificationResponse,
} from "#app/components/purchase/verification.ts";
import { ReversedOrderNotice } from "#app/components/purchase/reversed-order.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Card, CardContent } from "#app/components/ui/card.tsx";
import { addDeviceRefusal, addDeviceRefusalMessage } from "#app/lib/device-actions.ts";
import { formatLongDate } from "#app/lib/format.ts";
import { pageMeta } from "#app/lib/meta.ts";
import { PLAN_TYPE_LABELS } from "#app/lib/plans.ts";
import type { Route } from "./+types/payment-success";

export const meta: Route.MetaFunction = ({ matches }) => [
  ...pageMeta({ title: "Payment", description: "Your NaijaLink order.", path: "/payment-success" }, matches),
  { name: "robots", content: "noindex" },
];

type View =
  | { state: "verifying" }
  | { state: "invalid" }
  | { state: "reversed"; order: ReversedOrder }
  | ({ state: "success" } & Verified);

/** What a successful verification shows: the plan, its configs (none while pending), who may add. */
interface Verified {
  subscription: NonNullable<VerificationResponse["subscription"]>;
  configs: IssuedConfig[];
  mayClaimSlot: boolean;
  roomForDevice: boolean;
}

function verifiedView(result: VerificationResponse & { subscription: Verified["subscription"] }): Verified {
  return {
    subscription: result.subscription,
    configs: configsOf(result),
    // An answer of the spec's shape alone (no flags) keeps the button; the server still decides.
    mayClaimSlot: result.mayClaimSlot ?? true,
    roomForDevice: result.roomForDevice ?? true,
  };
}

const READY_TOAST = ["Payment Successful", { description: "Your VPN configuration is ready." }] as const;

function verificationFailed() {
  toast.error("Verification Failed", { description: "Unable to verify payment. Please contact support." });
}

export default function PaymentSuccess() {
  const [searchParams] = useSearchParams();
  const sessionId = searchParams.get("session_id");
  const [view, setView] = useState<View>(sessionId ? { state: "verifying" } : { state: "invalid" });
  const [adding, setAdding] = useState(false);
  const started = useRef<string | null>(null);
  /** A refunded or disputed order has its own page, whichever call learnt of it. */
  const showIfReversed = (result: VerificationResponse) => {
    const order = reversedOrderOf(result);
    if (order) setView({ state: "reversed", order });
    return order !== null;
  };

  useEffect(() => {
    if (!sessionId) {
      toast.error("Error", { description: "No payment session found." });
      setView({ state: "invalid" });
      return;
    }
    if (started.current === sessionId) return;
    started.current = sessionId;
    setView({ state: "verifying" });
    requestVerification(sessionId)
      .then((result) => {
        if (result.success && result.subscription) {
          const verified = verifiedView({ ...result, subscription: result.subscription });
          // Configuration Pending is not "ready": its page says what happens instead (issue 24).
          if (verified.configs.length > 0) toast.success(...READY_TOAST);
          setView({ state: "success", ...verified });
          return;
        }
        if (showIfReversed(result)) return;
        if (result.error === DEVICE_LIMIT_ERROR) {
          toast.error("Device Limit Reached", { description: result.message });
        } else {
          verificationFailed();
        }
        setView({ state: "invalid" });
      })
      .catch(() => {
        verificationFailed();
        setView({ state: "invalid" });
      });
  }, [sessionId]);

  const pending = view.state === "success" && view.configs.length === 0;
  const gaveUp = usePendingConfigurationPoll(sessionId, pending, (result) => {
    if (result.success && result.subscription) {
      const verified = verifiedView({ ...result, subscription: result.subscription });
      if (verified.configs.length === 0) return;
      toast.success(...READY_TOAST);
      setView({ state: "success", ...verified });
    } else if (showIfReversed(result)) {
      return;
    } else if (result.error !== RATE_LIMITED_ERROR) {
      verificationFailed();
      setView({ state: "invalid" });
    }
  });

  async function addDevice() {
    if (!sessionId || view.state !== "success" || adding) return;
    setAdding(true);
    try {
      const result = await requestVerification(sessionId, true);
      if (result.success && result.subscription && result.configSlot) {
        const verified = verifiedView({ ...result, subscription: result.subscription });
        setView((current) => (current.state === "success" ? { state: "success", ...verified } : current));
        toast.success("Device Added", {
          description: `The config for device ${result.configSlot} is ready.`,
        });
      } else if (showIfReversed(result)) {
        return;
      } else if (result.error === DEVICE_LIMIT_ERROR) {
        toast.error("Device Limit Reached", { description: result.message });
        setView((current) => (current.state === "success" ? withSlotsTaken(current) : current));
      } else if (result.error === PAYING_BROWSER_ERROR) {
        toast.error("Device Not Added", {
          description: <MessageWithAccountLink text={result.message ?? ""} plainAnchor />,
        });
        setView((current) => (current.state === "success" ? { ...current, mayClaimSlot: false } : current));
      } else if (result.error === NO_ROOM_ERROR) {
        toast.error("Device Not Added", { description: result.message });
        setView((current) => (current.state === "success" ? { ...current, roomForDevice: false } : current));
      } else {
        verificationFailed();
      }
    } catch {
      verificationFailed();
    } finally {
      setAdding(false);
    }
  }

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
  const planDetails = (
    <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-left">
      <dt className="text-muted-foreground">Plan</dt>
      <dd className="font-semibold" data-testid="plan-name">
        {PLAN_TYPE_LABELS[subscription.planType]}
      </dd>
      <dt className="text-muted-foreground" data-testid="date-label">
        {dateLabel(subscription.planType)}
      </dt>
      <dd className="font-semibold">{formatLongDate(subscription.expiresAt)}</dd>
      <dt className="text-muted-foreground">Devices</dt>
      <dd data-testid="devices-in-use">
        {subscription.activeDevices} of {subscription.deviceLimit} in use
      </dd>
    </dl>
  );

  if (configs.length === 0) {
    return (
      <StatusSection icon={<Clock aria-hidden="true" className="size-12 text-primary" />}>
        <h1 className="text-3xl font-bold">Configuration Pending</h1>
        <p className="text-muted-foreground" role="status" data-testid="pending-note">
          {gaveUp
            ? "Your payment is confirmed. Your configuration is still being prepared: it will arrive by e-mail, and this page shows it when you open it again."
            : "Your payment is confirmed. Your configuration is being prepared: this page shows it as soon as it is ready, and it also arrives by e-mail."}
        </p>
        {planDetails}
        <AccountLink />
        <PrivateLinkNote />
      </StatusSection>
    );
  }

  return (
    <StatusSection icon={<CheckCircle2 aria-hidden="true" className="size-12 text-primary" />}>
      <h1 className="text-3xl font-bold">Payment Successful!</h1>
      <p className="text-muted-foreground">
        Import the config into the WireGuard app (Add Tunnel), switch it on and visit Nigerian sites. A copy
        is on its way to your e-mail.
      </p>
      {planDetails}
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

/** Every slot is taken (another tab or the account page used the last one): the button goes. */
function withSlotsTaken(view: Extract<View, { state: "success" }>): Extract<View, { state: "success" }> {
  return { ...view, subscription: { ...view.subscription, activeDevices: view.subscription.deviceLimit } };
}

/** After this tab is closed, the account page is the way back to every device and the plan. */
function AccountLink() {
  return (
    <Button asChild variant="outline">
      <Link to="/account">
        <UserRound aria-hidden="true" />
        Manage your devices and subscription
      </Link>
    </Button>
  );
}

/** The link is e-mailed and bookmarkable, and it opens slot 1's config: say so (decision 063). */
function PrivateLinkNote() {
  return (
    <p className="flex items-center gap-2 text-sm text-muted-foreground" data-testid="private-link-note">
      <LockKeyhole aria-hidden="true" className="size-4 shrink-0" />
      Keep this page&apos;s link private: anyone who opens it can download your configuration.
    </p>
  );
}

function StatusSection({ icon, children }: { icon: ReactNode; children: ReactNode }) {
  return (
    <section className="px-4 py-16">
      <Card className="mx-auto max-w-xl">
        <CardContent className="flex flex-col items-center gap-5 pt-8 text-center">
          {icon}
          {children}
        </CardContent>
      </Card>
    </section>
  );
}
