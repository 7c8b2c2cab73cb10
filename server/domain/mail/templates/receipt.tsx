import { formatLongDate } from "#core/format.ts";
import type { EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { accountUrl, EmailLayout, Facts, LinkLine, Paragraph, type EmailSite } from "./layout.tsx";

export type Receipt = EmailData<"receipt">;

export function ReceiptEmail({ site, receipt }: { site: EmailSite; receipt: Receipt }) {
  return (
    <EmailLayout
      site={site}
      preview={`${receipt.amount} paid for ${receipt.planName}, order ${receipt.orderNumber}.`}
      title="Thank you for your payment"
    >
      <Paragraph>This is your receipt. Keep it for your records.</Paragraph>
      <Facts
        rows={[
          ["Order number", receipt.orderNumber],
          ["Plan", receipt.planName],
          ["Amount paid", receipt.amount],
          ["Date", formatLongDate(receipt.paidAt)],
          [receipt.oneTime ? "Access until" : "Renews on", formatLongDate(receipt.endsAt)],
        ]}
      />
      <Paragraph>
        Your VPN configuration comes in a separate e-mail. Your devices and configs are also on your account
        page.
      </Paragraph>
      <LinkLine lead="Your account:" href={accountUrl(site)} />
    </EmailLayout>
  );
}

export function receiptEmail(site: EmailSite, receipt: Receipt): Promise<RenderedEmail> {
  return renderEmail(
    `Your ${site.BRAND_NAME} receipt: ${receipt.planName}, order ${receipt.orderNumber}`,
    <ReceiptEmail site={site} receipt={receipt} />,
  );
}
