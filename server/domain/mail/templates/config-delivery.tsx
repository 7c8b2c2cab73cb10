import { Img, Section, Text } from "@react-email/components";
import type { CSSProperties } from "react";
import { formatLongDate } from "#core/format.ts";
import type { EmailData } from "../email-data.ts";
import { qrCodePng } from "#server/qr-code.ts";
import { renderEmail, type RenderedEmail } from "../render.ts";
import { WasThisYou } from "./device-notice.tsx";
import { EmailLayout, Facts, LinkLine, Paragraph, type EmailSite } from "./layout.tsx";

const steps: CSSProperties = {
  fontSize: "15px",
  lineHeight: "24px",
  margin: "0 0 16px",
  paddingLeft: "24px",
};

export type ConfigDelivery = EmailData<"vpn-config">;

/** Content-ID of the attached PNG of the config's QR code. */
export const QR_CONTENT_ID = "config-qr";

type AlternateOffer = NonNullable<ConfigDelivery["alternatePort"]>;

/** "Can't connect on this network? Use port 443": the same device's config on the alternate port. */
export function AlternatePortOffer({ offer }: { offer: AlternateOffer }) {
  return (
    <>
      <Paragraph>
        <strong>Can&apos;t connect on this network? Use port {offer.port}</strong>. Some hotel, office and
        mobile networks block the usual port. This is the same device on port {offer.port} (no extra device
        slot); import it as a second tunnel and switch it on where the first one does not connect.
      </Paragraph>
      <LinkLine lead={`Config for port ${offer.port}:`} href={offer.downloadUrl} />
    </>
  );
}

/**
 * The config of one device: link, QR code, steps, with the `.conf` attached. A device beyond
 * the first was added later, so its e-mail is also the "device added" notice.
 */
export function ConfigDeliveryEmail({ site, delivery }: { site: EmailSite; delivery: ConfigDelivery }) {
  const addedLater = delivery.slot > 1;
  const title = addedLater
    ? `${delivery.deviceName} was added to your plan`
    : `Your ${site.BRAND_NAME} VPN configuration is ready`;
  return (
    <EmailLayout site={site} preview={`Your config ${delivery.fileName} is attached.`} title={title}>
      <Facts
        rows={[
          ["Plan", delivery.planName],
          [delivery.oneTime ? "Access until" : "Renews on", formatLongDate(delivery.endsAt)],
          ["Device", `${delivery.deviceName} (slot ${delivery.slot})`],
        ]}
      />
      <LinkLine lead="Download your config:" href={delivery.downloadUrl} />
      <Section>
        <Img src={`cid:${QR_CONTENT_ID}`} alt={`QR code of ${delivery.fileName}`} width={220} height={220} />
        <Text data-skip-in-text="true">
          On a phone, scan this code in the WireGuard app (Add Tunnel, then Create from QR code).
        </Text>
      </Section>
      <Paragraph>How to connect:</Paragraph>
      <ol style={steps}>
        <li>
          Install WireGuard from the official app store (iOS App Store, Android Play Store) or wireguard.com
          for Windows, Mac and Linux.
        </li>
        <li>
          Import the attached {delivery.fileName} with Add Tunnel (or &quot;Import tunnel(s) from file&quot;),
          or download it again from the link above.
        </li>
        <li>Toggle the connection on and visit Nigerian sites.</li>
      </ol>
      {delivery.alternatePort && <AlternatePortOffer offer={delivery.alternatePort} />}
      <Paragraph>
        Keep this e-mail private: the file, the code and the links are the key to your connection.
      </Paragraph>
      {addedLater && <WasThisYou site={site} change={`add ${delivery.deviceName}`} />}
    </EmailLayout>
  );
}

/** The e-mail, with the `.conf` attached first (the tutorial promises it) and its QR code as a PNG. */
export async function configDeliveryEmail(site: EmailSite, delivery: ConfigDelivery): Promise<RenderedEmail> {
  const subject =
    delivery.slot > 1
      ? `${delivery.deviceName} added: your ${site.BRAND_NAME} VPN config (${delivery.fileName})`
      : `Your ${site.BRAND_NAME} VPN config (${delivery.fileName})`;
  const rendered = await renderEmail(subject, <ConfigDeliveryEmail site={site} delivery={delivery} />);
  return { ...rendered, attachments: await configAttachments(delivery) };
}

/** The `.conf` first (the e-mails promise it) and its QR code as a PNG, shown inline by `cid:`. */
export async function configAttachments(config: { fileName: string; clientConfig: string }) {
  return [
    { filename: config.fileName, content: config.clientConfig, contentType: "text/plain; charset=utf-8" },
    // The same text as the success page's QR code.
    {
      filename: "config-qr.png",
      content: await qrCodePng(config.clientConfig),
      contentType: "image/png",
      contentId: QR_CONTENT_ID,
    },
  ];
}
