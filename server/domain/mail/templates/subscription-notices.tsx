import { formatLongDate } from "#core/format.ts";
import type { EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { accountUrl, EmailLayout, LinkLine, Paragraph, pricingUrl, type EmailSite } from "./layout.tsx";

/** What the notices about a subscription's period say about it. */
export type PlanPeriod = EmailData<"renewal-reminder">;

type Props = { site: EmailSite; period: PlanPeriod };

export function RenewalReminderEmail({ site, period }: Props) {
  const date = formatLongDate(period.date);
  return (
    <EmailLayout
      site={site}
      preview={`${period.planName} renews on ${date}.`}
      title={`Your ${period.planName} renews on ${date}`}
    >
      <Paragraph>
        On {date} we will charge {period.price} to your saved payment method and your VPN keeps working
        without a break. There is nothing you need to do.
      </Paragraph>
      <Paragraph>To change your card or cancel before then, use your account page.</Paragraph>
      <LinkLine lead="Your account:" href={accountUrl(site)} />
    </EmailLayout>
  );
}

export function PassEndingEmail({ site, period }: Props) {
  const date = formatLongDate(period.date);
  return (
    <EmailLayout
      site={site}
      preview={`${period.planName} ends on ${date}.`}
      title={`Your ${period.planName} ends on ${date}`}
    >
      <Paragraph>
        Your configs stop connecting on {date}. To keep your Nigerian connection, choose a plan before then.
      </Paragraph>
      <LinkLine lead="Plans:" href={pricingUrl(site)} />
    </EmailLayout>
  );
}

export function PaymentFailedEmail({ site, period }: Props) {
  return (
    <EmailLayout
      site={site}
      preview="Please update your payment method."
      title="Your payment did not go through"
    >
      <Paragraph>
        We could not charge {period.price} for your {period.planName}. Your VPN keeps working while the
        payment is tried again over the next days. Update your payment method on your account page to avoid an
        interruption.
      </Paragraph>
      <LinkLine lead="Update your payment method:" href={accountUrl(site)} />
    </EmailLayout>
  );
}

export function CancelledEmail({ site, period, endedAlready }: Props & { endedAlready: boolean }) {
  const date = formatLongDate(period.date);
  return (
    <EmailLayout
      site={site}
      preview={`${period.planName} will not renew.`}
      title={`Your ${period.planName} is cancelled`}
    >
      {endedAlready ? (
        <Paragraph>Your configs stopped working on {date}. You will not be charged again.</Paragraph>
      ) : (
        <Paragraph>
          It will not renew, and you will not be charged again. Your configs keep working until {date}.
          Changed your mind? Resume it on your account page before then.
        </Paragraph>
      )}
      <LinkLine lead="Your account:" href={accountUrl(site)} />
    </EmailLayout>
  );
}

export function ExpiredEmail({ site, period }: Props) {
  const date = formatLongDate(period.date);
  return (
    <EmailLayout
      site={site}
      preview={`${period.planName} ended on ${date}.`}
      title={`Your ${period.planName} has ended`}
    >
      <Paragraph>Your configs stopped working on {date}. To connect again, choose a plan.</Paragraph>
      <LinkLine lead="Plans:" href={pricingUrl(site)} />
    </EmailLayout>
  );
}

export function renewalReminderEmail(site: EmailSite, period: PlanPeriod): Promise<RenderedEmail> {
  return renderEmail(
    `Your ${site.BRAND_NAME} ${period.planName} renews on ${formatLongDate(period.date)}`,
    <RenewalReminderEmail site={site} period={period} />,
  );
}

export function passEndingEmail(site: EmailSite, period: PlanPeriod): Promise<RenderedEmail> {
  return renderEmail(
    `Your ${site.BRAND_NAME} ${period.planName} ends on ${formatLongDate(period.date)}`,
    <PassEndingEmail site={site} period={period} />,
  );
}

export function paymentFailedEmail(site: EmailSite, period: PlanPeriod): Promise<RenderedEmail> {
  return renderEmail(
    `Action needed: your ${site.BRAND_NAME} payment did not go through`,
    <PaymentFailedEmail site={site} period={period} />,
  );
}

export function cancelledEmail(
  site: EmailSite,
  cancelled: EmailData<"subscription-cancelled">,
): Promise<RenderedEmail> {
  return renderEmail(
    `Your ${site.BRAND_NAME} ${cancelled.planName} is cancelled`,
    <CancelledEmail site={site} period={cancelled} endedAlready={cancelled.endedAlready} />,
  );
}

export function expiredEmail(site: EmailSite, period: PlanPeriod): Promise<RenderedEmail> {
  return renderEmail(
    `Your ${site.BRAND_NAME} ${period.planName} has ended`,
    <ExpiredEmail site={site} period={period} />,
  );
}
