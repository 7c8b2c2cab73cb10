import { Link } from "react-router";
import { formatLongDate } from "#core/format.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";

/** A refunded or disputed plan on /account: since when, and where to ask about it. */
export function ReversedNotice({ subscription }: { subscription: AccountSubscription }) {
  if (subscription.status !== "refunded" && subscription.status !== "disputed") return null;
  const on = subscription.reversedAt ? ` on ${formatLongDate(subscription.reversedAt)}` : "";
  return (
    <p
      className="rounded-md border border-purple-200 bg-purple-50 p-3 text-sm text-purple-900"
      data-testid="reversed-notice"
    >
      {subscription.status === "refunded"
        ? `Refunded${on}: the payment went back to you and this plan's configs no longer work.`
        : `Payment disputed${on}: this plan's configs no longer work.`}{" "}
      Questions?{" "}
      <Link to="/contact" className="font-medium underline underline-offset-2">
        Contact support
      </Link>
      .
    </p>
  );
}

/** The badge's words: "Cancels on …" and "Refunded on …" carry their date. */
export function statusLabel(subscription: AccountSubscription): string | undefined {
  if (subscription.status === "cancels") return `Cancels on ${formatLongDate(subscription.expiresAt)}`;
  if (subscription.status === "refunded" && subscription.reversedAt)
    return `Refunded on ${formatLongDate(subscription.reversedAt)}`;
  return undefined;
}
