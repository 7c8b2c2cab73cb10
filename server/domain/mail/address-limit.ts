// Per-address limits on the e-mails a caller can have sent to an address they name (issue 25):
// sign-in links, confirmations, password resets, "you already have an account" notices. Counted
// per address whatever the caller's IP, so twelve clients cannot queue twelve mails to one inbox.
// It limits sending, never using: the request is answered the same way whether or not a mail went
// out, and the window is no longer than the shortest link's life, so while it is closed the
// newest mail sent in it still holds a valid link: a flood never locks the owner out.
import type { Executor } from "#server/db/client.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";

export const ADDRESS_MAIL_LIMIT = {
  /** Mails of one kind to one address per window: a person's own retries fit, a flood does not. */
  limit: 5,
  /** 15 minutes: the life of a customer's sign-in link, the shortest of these links. */
  windowMs: 15 * 60_000,
};

/** Which mails share a budget: a staff account's mails, a customer's sign-in links. */
export type AddressMailKind = "staff-account" | "customer-sign-in";

/** Whether one more mail of `kind` may go to `email` now; counts it when it may. */
export async function mayMailAddress(
  executor: Executor,
  kind: AddressMailKind,
  email: string,
  now = Date.now(),
): Promise<boolean> {
  const result = await consumeRateLimit(executor, `mail:${kind}:${email.trim().toLowerCase()}`, {
    ...ADDRESS_MAIL_LIMIT,
    now,
  });
  return result.allowed;
}
