import { formatMoney } from "#core/format.ts";
import type { Executor } from "#server/db/client.ts";
import type { EmailRequest } from "./email-data.ts";

// The e-mails the staff get about a customer's payment, one to each staff admin, queued in the
// transaction of the event that causes them (like the customer's, see customer-emails.ts).

export interface StaffEmailDeps {
  config: { STAFF_ADMINS: readonly string[] };
  mail: { enqueue(executor: Executor, email: EmailRequest): Promise<string> };
}

/** What staff need to answer a dispute; no links or keys (the notice goes to plain inboxes). */
export interface DisputeFacts {
  disputeId: string;
  reason: string | null;
  amountCents: number;
  currency: string;
  /** The subscription the disputed charge paid for; null while its payment is not recorded yet. */
  subscription: { id: string; planId: string; customerEmail: string | null } | null;
  /** The address the charge carried, for when no subscription is recorded. */
  chargeEmail: string | null;
  stripeCustomerId: string | null;
  paymentIntentId: string | null;
  respondBy: Date | null;
}

export async function queueDisputeNotice(
  tx: Executor,
  deps: StaffEmailDeps,
  dispute: DisputeFacts,
): Promise<void> {
  const { subscription } = dispute;
  const data = {
    disputeId: dispute.disputeId,
    reason: dispute.reason,
    amount: formatMoney(dispute.amountCents, dispute.currency),
    subscription: subscription ? { id: subscription.id, planId: subscription.planId } : null,
    customerEmail: subscription?.customerEmail ?? dispute.chargeEmail,
    stripeCustomerId: dispute.stripeCustomerId,
    paymentIntentId: dispute.paymentIntentId,
    respondBy: dispute.respondBy,
  };
  for (const to of deps.config.STAFF_ADMINS) {
    await deps.mail.enqueue(tx, { template: "dispute-notice", to, data });
  }
}
