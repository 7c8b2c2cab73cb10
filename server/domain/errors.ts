/**
 * What a domain rule refused, in the product's words. Domain code throws these (or its own
 * subclasses, such as `DeviceLimitReached`); only the HTTP edge (server/http/api.ts) turns a
 * kind into a status and the `{ error, message }` body.
 */
export type DomainErrorKind =
  | "invalid"
  | "unauthenticated"
  | "forbidden"
  | "not-found"
  | "conflict"
  | "gone"
  | "payment-required"
  | "rate-limited"
  | "unavailable"
  | "upstream-failed";

export class DomainError extends Error {
  constructor(
    public readonly kind: DomainErrorKind,
    /** A short title, the `error` field of the answer. */
    public readonly error: string,
    message: string,
    /** For `rate-limited`: when the caller may try again. */
    public readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export const invalidInput = (message: string) => new DomainError("invalid", "Invalid request", message);
export const notFound = (message = "Not found.") => new DomainError("not-found", "Not found", message);
export const conflict = (message: string) => new DomainError("conflict", "Conflict", message);
export const rateLimited = (retryAfterSeconds: number) =>
  new DomainError(
    "rate-limited",
    "Too many requests",
    `Too many requests. Please try again in ${retryAfterSeconds} seconds.`,
    retryAfterSeconds,
  );
