import type { ComponentProps } from "react";
import { Badge } from "#app/components/ui/badge.tsx";

/** Every state a subscription is shown in, on /account and in the staff console. */
export type SubscriptionDisplayState =
  "active" | "cancelling" | "past_due" | "canceled" | "expired" | "refunded" | "disputed";

type BadgeVariant = NonNullable<ComponentProps<typeof Badge>["variant"]>;

/** A distinct word and colour for each state: a refunded plan never looks like an active one. */
export const SUBSCRIPTION_STATE_BADGES: Record<
  SubscriptionDisplayState,
  { label: string; variant: BadgeVariant }
> = {
  active: { label: "Active", variant: "success" },
  cancelling: { label: "Cancelling", variant: "info" },
  past_due: { label: "Past due", variant: "warning" },
  canceled: { label: "Cancelled", variant: "secondary" },
  expired: { label: "Expired", variant: "outline" },
  refunded: { label: "Refunded", variant: "purple" },
  disputed: { label: "Disputed", variant: "danger" },
};

/** A stored status with its cancel-at-period-end flag, as a display state. */
export function displayStateOf(subscription: {
  status: Exclude<SubscriptionDisplayState, "cancelling">;
  cancelAtPeriodEnd: boolean;
}): SubscriptionDisplayState {
  const paidUp = subscription.status === "active" || subscription.status === "past_due";
  return paidUp && subscription.cancelAtPeriodEnd ? "cancelling" : subscription.status;
}

export function SubscriptionStatusBadge({
  state,
  label,
  ...props
}: { state: SubscriptionDisplayState; label?: string } & Omit<ComponentProps<"span">, "children">) {
  const badge = SUBSCRIPTION_STATE_BADGES[state];
  return (
    <Badge variant={badge.variant} data-state={state} {...props}>
      {label ?? badge.label}
    </Badge>
  );
}
