import { DomainError } from "#server/domain/errors.ts";
import { addDeviceRefusalMessage } from "#core/device-actions.ts";
import { formatLongDate } from "#core/format.ts";

// verify-payment's verdicts: answered in the storefront's shape (`success: false`, `error`, `message`)
// with a status that says what happened. Device limit reached is the VPN area's
// `DeviceLimitReached`.

export const sessionNotFound = () =>
  new DomainError("not-found", "Payment session not found", "We could not find this payment session.");

export const paymentNotCompleted = () =>
  new DomainError(
    "payment-required",
    "Payment not completed",
    "This payment has not been completed yet. If you were charged, please contact support.",
  );

/** The provider charged an amount or currency other than the plan's price; nothing was fulfilled. */
export const paymentNeedsReview = () =>
  new DomainError(
    "conflict",
    "Payment needs review",
    "The amount charged does not match the price of this plan, so we have not set up your connection. Please contact support and we will put it right.",
  );

export const payingBrowserRequired = () =>
  new DomainError(
    "forbidden",
    "Paying browser required",
    addDeviceRefusalMessage("other-browser", 0, "success")!,
  );

export const subscriptionEnded = (status: string) =>
  new DomainError(
    "gone",
    "Subscription ended",
    `This subscription is ${status}; its configs no longer work. Please choose a plan again or contact support.`,
  );

/**
 * verify-payment's answer for an order whose payment went back: 410 with
 * `error: "refunded"` (or `"disputed"`) and the date, which the success page shows as such.
 */
export class PaymentReversed extends DomainError {
  constructor(
    public readonly reversal: "refunded" | "disputed",
    public readonly at: Date,
  ) {
    super(
      "gone",
      reversal,
      reversal === "refunded"
        ? `This order was refunded on ${formatLongDate(at)}; its configs no longer work.`
        : `The payment for this order was disputed on ${formatLongDate(at)}; its configs no longer work.`,
    );
  }
}

export const providerUnavailable = () =>
  new DomainError(
    "upstream-failed",
    "Payment provider unavailable",
    "We could not reach the payment provider. Please try again in a moment.",
  );

export const checkoutUnavailable = () =>
  new DomainError(
    "upstream-failed",
    "Payment provider unavailable",
    "We could not start the checkout. Please try again.",
  );

export const nothingToSell = () =>
  new DomainError(
    "unavailable",
    "Service unavailable",
    "We cannot set up new connections right now. Please try again later or contact support.",
  );

// The customer's own billing actions (self-service.ts).

export const subscriptionNotFound = () =>
  new DomainError("not-found", "Subscription not found", "We could not find this subscription.");

export const receiptNotFound = () =>
  new DomainError("not-found", "Receipt not found", "There is no such order among this plan's payments.");

/** The Unlock Pass is paid once: there is no renewal to cancel or resume, it just ends. */
export const passDoesNotRenew = (endsAt: Date) =>
  new DomainError(
    "conflict",
    "Plan does not renew",
    `This pass is paid once and does not renew; it ends on ${formatLongDate(endsAt)}.`,
  );

export const billingUnavailable = () =>
  new DomainError(
    "unavailable",
    "Billing unavailable",
    "We cannot change this subscription right now. Please try again later or contact support.",
  );
