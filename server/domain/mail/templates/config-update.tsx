import type { EmailData } from "../email-data.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { AlternatePortOffer } from "./config-delivery.tsx";
import { accountUrl, EmailLayout, LinkLine, Paragraph, type EmailSite } from "./layout.tsx";

export type ConfigUpdate = EmailData<"config-update">;

/**
 * The server a customer's configs use changed what a config says (its MTU, DNS, endpoint, a port,
 * its key): the configs they hold are out of date, and a new download is advised.
 */
export function ConfigUpdateEmail({ site, update }: { site: EmailSite; update: ConfigUpdate }) {
  const title = "New settings: download your config again";
  return (
    <EmailLayout site={site} preview={`${title}.`} title={title}>
      <Paragraph>
        We changed the settings of the {site.BRAND_NAME} server your {update.planName} config uses, so that it
        keeps working on more networks (for example the size of its packets, which keeps large downloads from
        stalling on hotel and mobile networks). A config downloaded before the change may connect less well,
        or not at all.
      </Paragraph>
      <Paragraph>
        Download it again and import it in WireGuard in place of the old one (delete the old tunnel first):
      </Paragraph>
      {update.devices.map((device) => (
        <div key={device.downloadUrl}>
          <LinkLine lead={`${device.deviceName} (${device.fileName}):`} href={device.downloadUrl} />
          {device.alternatePort && <AlternatePortOffer offer={device.alternatePort} />}
        </div>
      ))}
      <LinkLine lead="Or from your account page:" href={accountUrl(site)} />
      <Paragraph>Keep this e-mail private: the links are the key to your connection.</Paragraph>
    </EmailLayout>
  );
}

export function configUpdateEmail(site: EmailSite, update: ConfigUpdate): Promise<RenderedEmail> {
  return renderEmail(
    `Download your ${site.BRAND_NAME} config again: its server has new settings`,
    <ConfigUpdateEmail site={site} update={update} />,
  );
}
