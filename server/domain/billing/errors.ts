import { ApiError } from "#server/http/api.ts";

/**
 * verify-payment answers its verdict in the spec's shape (`success: false`, `error`, `message`)
 * with a status that says what happened (decision 052).
 */
export class VerificationFailure extends ApiError {
  constructor(status: number, error: string, message: string) {
    super(status, error, message);
    this.name = "VerificationFailure";
  }
}

export const sessionNotFound = () =>
  new VerificationFailure(404, "Payment session not found", "We could not find this payment session.");

export const paymentNotCompleted = () =>
  new VerificationFailure(
    402,
    "Payment not completed",
    "This payment has not been completed yet. If you were charged, please contact support.",
  );

export const subscriptionEnded = (status: string) =>
  new VerificationFailure(
    410,
    "Subscription ended",
    `This subscription is ${status}; its configs no longer work. Please choose a plan again or contact support.`,
  );

export const deviceLimitReached = (deviceLimit: number) =>
  new VerificationFailure(
    409,
    "Device limit reached",
    `Your plan includes ${deviceLimit} device${deviceLimit === 1 ? "" : "s"} and all of them already have a config.`,
  );

export const providerUnavailable = () =>
  new VerificationFailure(
    502,
    "Payment provider unavailable",
    "We could not reach the payment provider. Please try again in a moment.",
  );
