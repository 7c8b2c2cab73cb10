import { z } from "zod";
import { emailDataSchema, type EmailEnvelope } from "./email-data.ts";
import type { StoredEmail } from "./outbox.ts";
import { qrCodePng } from "#server/qr-code.ts";
import type { MailAttachment, RenderedEmail } from "./render.ts";
import type { EmailSite } from "./templates/layout.tsx";

/** A message ready for the transport (one queued before templates may lack an HTML part). */
export interface MailMessage extends Omit<RenderedEmail, "html">, EmailEnvelope {
  to: string;
  replyTo?: string;
  html?: string;
}

/**
 * Renders a stored message from its template and data. The templates, and
 * react-email with them, are loaded on the first message, not when the app starts.
 */
export async function composeEmail(site: EmailSite, stored: StoredEmail): Promise<MailMessage> {
  if (!("template" in stored)) return renderedBeforeTemplates(stored);
  const { RENDERERS } = await import("./templates/catalogue.ts");
  const render = RENDERERS[stored.template] as (site: EmailSite, data: unknown) => Promise<RenderedEmail>;
  const rendered = await render(site, z.decode(emailDataSchema(stored.template), stored.data));
  return { to: stored.to, replyTo: stored.replyTo, from: stored.from, thread: stored.thread, ...rendered };
}

async function renderedBeforeTemplates(
  stored: Exclude<StoredEmail, { template: string }>,
): Promise<MailMessage> {
  const { kind: _kind, attachments, ...message } = stored;
  return {
    ...message,
    attachments:
      attachments &&
      (await Promise.all(
        attachments.map(async ({ asQrCode, ...attachment }): Promise<MailAttachment> =>
          asQrCode ? { ...attachment, content: await qrCodePng(attachment.content) } : attachment,
        ),
      )),
  };
}
