import { Img, Section, Text } from "@react-email/components";
import { formatLongDate } from "#core/format.ts";
import type { DeviceChange, EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { AlternatePortOffer, configAttachments, QR_CONTENT_ID } from "./config-delivery.tsx";
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
    subject: (notice, brand) =>
      `${brand} moved ${notice.deviceName} to another server: ${"config" in notice && notice.config ? "its new config is attached" : "download its new config"}`,
    // A notice queued before decision 130 has no config of its own: it points at the account page.
    body: "Its server is being taken out of service, so its old config stopped working.",
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
      <Paragraph>
        {wording.body}
        {change === "relocated" && !("config" in notice && notice.config) ? ` ${NEW_CONFIG}` : ""}
      </Paragraph>
      <Facts
        rows={[
          ["Device", notice.deviceName],
          ...(notice.location ? [["Location", notice.location] as [string, string]] : []),
          ["Plan", notice.planName],
          ["Date", formatLongDate(notice.at)],
        ]}
      />
      {"config" in notice && notice.config ? <NewConfig config={notice.config} /> : null}
      {wording.change ? (
        <WasThisYou site={site} change={wording.change} />
      ) : (
        <LinkLine lead="Your account:" href={accountUrl(site)} />
      )}
    </EmailLayout>
  );
}

type RelocatedConfig = NonNullable<EmailData<"device-relocated">["config"]>;

/** A moved device's new config: attached, as a QR code, and how to swap it in without a clash. */
function NewConfig({ config }: { config: RelocatedConfig }) {
  return (
    <>
      <Paragraph>
        <strong>Its new config is attached ({config.fileName}).</strong> In the WireGuard app, switch the old
        tunnel off first: two tunnels on at once clash. Then import the attached file (Add Tunnel, or
        &quot;Import tunnel(s) from file&quot;) or scan the code below, switch the new tunnel on, and delete
        the old one.
      </Paragraph>
      <Section>
        <Img src={`cid:${QR_CONTENT_ID}`} alt={`QR code of ${config.fileName}`} width={220} height={220} />
        <Text data-skip-in-text="true">
          On a phone, scan this code in the WireGuard app (Add Tunnel, then Create from QR code).
        </Text>
      </Section>
      <LinkLine lead="Or download it:" href={config.downloadUrl} />
      {config.alternatePort && <AlternatePortOffer offer={config.alternatePort} />}
      <Paragraph>
        Keep this e-mail private: the file, the code and the links are the key to your connection.
      </Paragraph>
    </>
  );
}

export async function deviceNoticeEmail(
  site: EmailSite,
  change: DeviceChange,
  notice: DeviceNotice,
): Promise<RenderedEmail> {
  const rendered = await renderEmail(
    WORDING[change].subject(notice, site.BRAND_NAME),
    <DeviceNoticeEmail site={site} change={change} notice={notice} />,
  );
  const config = "config" in notice ? notice.config : undefined;
  return config ? { ...rendered, attachments: await configAttachments(config) } : rendered;
}
