import { formatLongDate } from "#core/format.ts";
import type { EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import {
  accountUrl,
  EmailLayout,
  Facts,
  LinkLine,
  Paragraph,
  pricingUrl,
  type EmailSite,
} from "./layout.tsx";

// The customer's side of a refund or dispute and of a renewal resumed.

export type RefundNotice = EmailData<"subscription-refunded">;

export function RefundedEmail({ site, refund }: { site: EmailSite; refund: RefundNotice }) {
  const on = formatLongDate(refund.at);
  const dispute = refund.kind === "dispute";
  return (
    <EmailLayout
      site={site}
      preview={`${refund.amount} for ${refund.planName} ${dispute ? "was disputed" : "is refunded"}.`}
      title={
        dispute ? `Your payment for ${refund.planName} was disputed` : `Your ${refund.planName} is refunded`
      }
    >
      <Paragraph>
        {dispute
          ? `Your bank told us on ${on} that you disputed this payment, so the money goes back to you through your bank.`
          : `We refunded your payment on ${on}. It goes back to the card or account you paid with; banks usually take 5 to 10 business days to show it.`}
      </Paragraph>
      <Facts
        rows={[
          ["Order number", refund.orderNumber],
          ["Plan", refund.planName],
          [dispute ? "Amount disputed" : "Amount refunded", refund.amount],
          [dispute ? "Disputed on" : "Refunded on", on],
        ]}
      />
      <Paragraph>
        {`Your plan ended on ${formatLongDate(refund.endedAt)}: its configs stopped working then and it will not renew. You will not be charged again for it.`}
      </Paragraph>
      <Paragraph>Want your Nigerian connection back? You can buy a plan again at any time.</Paragraph>
      <LinkLine lead="Plans:" href={pricingUrl(site)} />
    </EmailLayout>
  );
}

export function ResumedEmail({
  site,
  period,
}: {
  site: EmailSite;
  period: EmailData<"subscription-resumed">;
}) {
  const date = formatLongDate(period.date);
  return (
    <EmailLayout
      site={site}
      preview={`${period.planName} renews again on ${date}.`}
      title={`Your ${period.planName} renews again`}
    >
      <Paragraph>
        You resumed your plan: it is no longer cancelled. On {date} we will charge {period.price} to your
        saved payment method and your VPN keeps working without a break.
      </Paragraph>
      <Paragraph>To cancel again or change your card, use your account page.</Paragraph>
      <LinkLine lead="Your account:" href={accountUrl(site)} />
    </EmailLayout>
  );
}

export function refundedEmail(site: EmailSite, refund: RefundNotice): Promise<RenderedEmail> {
  return renderEmail(
    refund.kind === "dispute"
      ? `Your ${site.BRAND_NAME} payment was disputed: ${refund.planName} has ended`
      : `Your ${site.BRAND_NAME} ${refund.planName} is refunded: ${refund.amount}`,
    <RefundedEmail site={site} refund={refund} />,
  );
}

export function resumedEmail(
  site: EmailSite,
  period: EmailData<"subscription-resumed">,
): Promise<RenderedEmail> {
  return renderEmail(
    `Your ${site.BRAND_NAME} ${period.planName} renews again`,
    <ResumedEmail site={site} period={period} />,
  );
}
