import { LockKeyhole, UserRound } from "lucide-react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { Card, CardContent } from "#app/components/ui/card.tsx";
import { formatLongDate } from "#core/format.ts";
import { PLAN_TYPE_LABELS } from "#core/plans.ts";
import type { Verified } from "./use-payment-verification.tsx";
import { dateLabel } from "./verification.ts";

// The pieces the success page's states share.

/** The plan, until when, and how many of its devices are in use. */
export function PlanDetails({ subscription }: { subscription: Verified["subscription"] }) {
  return (
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
}

/** After this tab is closed, the account page is the way back to every device and the plan. */
export function AccountLink() {
  return (
    // At 360 px the words do not fit on one line: they wrap inside the button.
    <Button asChild variant="outline" className="h-auto min-h-10 max-w-full whitespace-normal text-center">
      <Link to="/account">
        <UserRound aria-hidden="true" />
        Manage your devices and subscription
      </Link>
    </Button>
  );
}

/** The link is e-mailed and bookmarkable, and it opens slot 1's config: say so. */
export function PrivateLinkNote() {
  return (
    <p className="flex items-center gap-2 text-sm text-muted-foreground" data-testid="private-link-note">
      <LockKeyhole aria-hidden="true" className="size-4 shrink-0" />
      Keep this page&apos;s link private: anyone who opens it can download your configuration.
    </p>
  );
}

export function StatusSection({ icon, children }: { icon: ReactNode; children: ReactNode }) {
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
