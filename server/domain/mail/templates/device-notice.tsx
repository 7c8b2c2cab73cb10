import { formatLongDate } from "#core/format.ts";
import type { DeviceChange, EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { accountUrl, EmailLayout, Facts, LinkLine, Paragraph, type EmailSite } from "./layout.tsx";

/** The security question every device change ends with: the owner learns of a change they did not make. */
export function WasThisYou({ site, change }: { site: EmailSite; change: string }) {
  return (
    <>
      <Paragraph>
        <strong>Was this you?</strong> If you did not {change}, someone else can reach your account: revoke
        the device on your account page and write to {site.SUPPORT_EMAIL}.
      </Paragraph>
      <LinkLine lead="Your account:" href={accountUrl(site)} />
    </>
  );
}

export type DeviceNotice = EmailData<`device-${DeviceChange}`>;

const NEW_CONFIG =
  "Download the new config from your account page and import it in WireGuard in place of the old one.";

const WORDING: Record<
  DeviceChange,
  {
    title: (notice: DeviceNotice) => string;
    subject: (notice: DeviceNotice, brand: string) => string;
    body: string;
    change?: string;
  }
> = {
  revoked: {
    title: ({ deviceName }) => `${deviceName} was removed from your plan`,
    subject: ({ deviceName }, brand) => `${deviceName} was removed from your ${brand} plan`,
    body: "Its config no longer connects and its download link no longer works. The slot is free for another device.",
    change: "remove this device",
  },
  rekeyed: {
    title: ({ deviceName }) => `${deviceName} has new keys`,
    subject: ({ deviceName }, brand) => `New keys for ${deviceName} on your ${brand} plan`,
    body: `The old config of this device stopped working. ${NEW_CONFIG}`,
    change: "ask for new keys",
  },
  moved: {
    title: ({ deviceName, location }) => `${deviceName} moved to ${location ?? "another location"}`,
    subject: ({ deviceName, location }, brand) =>
      `${deviceName} moved to ${location ?? "another location"} on your ${brand} plan`,
    body: `The old config of this device stopped working. ${NEW_CONFIG}`,
    change: "move this device",
  },
  relocated: {
    title: ({ deviceName, location }) => `We moved ${deviceName} to ${location ?? "another server"}`,
    subject: ({ deviceName }, brand) =>
      `${brand} moved ${deviceName} to another server: download its new config`,
    body: `Its server is being taken out of service, so its old config stopped working. ${NEW_CONFIG}`,
  },
};

export function DeviceNoticeEmail({
  site,
  change,
  notice,
}: {
  site: EmailSite;
  change: DeviceChange;
  notice: DeviceNotice;
}) {
  const wording = WORDING[change];
  const title = wording.title(notice);
  return (
    <EmailLayout site={site} preview={wording.change ? `${title}. Was this you?` : title} title={title}>
      <Paragraph>{wording.body}</Paragraph>
      <Facts
        rows={[
          ["Device", notice.deviceName],
          ...(notice.location ? [["Location", notice.location] as [string, string]] : []),
          ["Plan", notice.planName],
          ["Date", formatLongDate(notice.at)],
        ]}
      />
      {wording.change ? (
        <WasThisYou site={site} change={wording.change} />
      ) : (
        <LinkLine lead="Your account:" href={accountUrl(site)} />
      )}
    </EmailLayout>
  );
}

export function deviceNoticeEmail(
  site: EmailSite,
  change: DeviceChange,
  notice: DeviceNotice,
): Promise<RenderedEmail> {
  return renderEmail(
    WORDING[change].subject(notice, site.BRAND_NAME),
    <DeviceNoticeEmail site={site} change={change} notice={notice} />,
  );
}
