import type { EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { EmailLayout, Facts, Paragraph, type EmailSite } from "./layout.tsx";

/** What staff learn of a disputed payment; no links or keys. */
export type DisputeNotice = EmailData<"dispute-notice">;

export function DisputeNoticeEmail({ site, notice }: { site: EmailSite; notice: DisputeNotice }) {
  const { subscription } = notice;
  const rows: Array<[string, string]> = [
    ["Dispute", notice.disputeId],
    ["Reason", notice.reason ?? "not given"],
    ["Amount", notice.amount],
    ["Subscription", subscription ? `${subscription.id} (${subscription.planId})` : "not recorded yet"],
    ["Customer e-mail", notice.customerEmail ?? "unknown"],
    ["Stripe customer", notice.stripeCustomerId ?? "unknown"],
    ["Payment intent", notice.paymentIntentId ?? "unknown"],
  ];
  if (notice.respondBy) rows.push(["Evidence due by", notice.respondBy.toISOString()]);
  return (
    <EmailLayout
      site={site}
      audience="staff"
      preview={`A customer disputed ${notice.amount} with their bank.`}
      title="A customer disputed a payment with their bank"
    >
      <Paragraph>
        {subscription
          ? "The subscription it paid for is now disputed and its configs are revoked."
          : "No payment for this charge is recorded yet; when it arrives, its subscription will be recorded as disputed, with no config."}
      </Paragraph>
      <Facts rows={rows} />
      <Paragraph>Answer it in the Stripe Dashboard (Payments → Disputes).</Paragraph>
    </EmailLayout>
  );
}

export function disputeNoticeEmail(site: EmailSite, notice: DisputeNotice): Promise<RenderedEmail> {
  return renderEmail(
    `Payment disputed: ${notice.amount} (${notice.reason ?? "no reason given"})`,
    <DisputeNoticeEmail site={site} notice={notice} />,
  );
}
