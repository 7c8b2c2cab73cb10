import { DomainError } from "#server/domain/errors.ts";

/** Someone else's id answers exactly like an id that does not exist (object-level authorisation). */
export const subscriptionNotFound = () =>
  new DomainError("not-found", "Not found", "There is no such subscription in your account.");

export const deviceNotFound = () =>
  new DomainError("not-found", "Not found", "There is no such device in your account.");

export const subscriptionNotUsable = (status: string) =>
  new DomainError(
    "conflict",
    "Subscription ended",
    `This subscription is ${status}: its devices cannot be changed. Choose a plan on the pricing page to continue.`,
  );
