import { formatLongDate } from "#app/lib/format.ts";
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

export type DeviceChange = "revoked" | "rekeyed";

export interface DeviceNotice {
  change: DeviceChange;
  deviceName: string;
  planName: string;
  at: Date;
}

const WORDING: Record<DeviceChange, { title: (name: string) => string; change: string }> = {
  revoked: { title: (name) => `${name} was removed from your plan`, change: "remove this device" },
  rekeyed: { title: (name) => `${name} has new keys`, change: "ask for new keys" },
};

export function DeviceNoticeEmail({ site, notice }: { site: EmailSite; notice: DeviceNotice }) {
  const wording = WORDING[notice.change];
  const title = wording.title(notice.deviceName);
  return (
    <EmailLayout site={site} preview={`${title}. Was this you?`} title={title}>
      {notice.change === "revoked" ? (
        <Paragraph>
          Its config no longer connects and its download link no longer works. The slot is free for another
          device.
        </Paragraph>
      ) : (
        <Paragraph>
          The old config of this device stopped working. Download the new config from your account page and
          import it in WireGuard in place of the old one.
        </Paragraph>
      )}
      <Facts
        rows={[
          ["Device", notice.deviceName],
          ["Plan", notice.planName],
          ["Date", formatLongDate(notice.at)],
        ]}
      />
      <WasThisYou site={site} change={wording.change} />
    </EmailLayout>
  );
}

export function deviceNoticeEmail(site: EmailSite, notice: DeviceNotice): Promise<RenderedEmail> {
  const subject =
    notice.change === "revoked"
      ? `${notice.deviceName} was removed from your ${site.BRAND_NAME} plan`
      : `New keys for ${notice.deviceName} on your ${site.BRAND_NAME} plan`;
  return renderEmail(subject, <DeviceNoticeEmail site={site} notice={notice} />);
}
