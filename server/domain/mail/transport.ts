import fs from "node:fs/promises";
import path from "node:path";
import nodemailer from "nodemailer";
import QRCode from "qrcode";
import type { Config } from "#server/config.ts";
import type { QueuedEmail } from "./outbox.ts";

export interface MailTransport {
  /** Where messages go, for the start-up log line (never includes credentials). */
  description: string;
  send(email: QueuedEmail, from: string): Promise<void>;
  close(): void;
}

async function toNodemailerAttachment(attachment: NonNullable<QueuedEmail["attachments"]>[number]) {
  const content = attachment.asQrCode
    ? await QRCode.toBuffer(attachment.content, { type: "png", errorCorrectionLevel: "M", margin: 2 })
    : attachment.content;
  return {
    filename: attachment.filename,
    content,
    contentType: attachment.contentType,
    cid: attachment.contentId,
  };
}

async function toNodemailerMessage(email: QueuedEmail, from: string) {
  return {
    from: email.from ?? from,
    to: email.to,
    replyTo: email.replyTo,
    subject: email.subject,
    text: email.text,
    html: email.html,
    // A stable Message-ID lets a mailbox recognise a retry of a message that did arrive.
    messageId: email.messageId ?? `<${email.id}@naijalink.outbox>`,
    inReplyTo: email.inReplyTo,
    references: email.references,
    attachments: email.attachments && (await Promise.all(email.attachments.map(toNodemailerAttachment))),
  };
}

export function createMailTransport(config: Config): MailTransport {
  if (config.SMTP_URL) {
    const transporter = nodemailer.createTransport(config.SMTP_URL);
    const url = new URL(config.SMTP_URL);
    return {
      description: `SMTP ${url.hostname}:${url.port || "(default port)"}`,
      async send(email, from) {
        await transporter.sendMail(await toNodemailerMessage(email, from));
      },
      close: () => transporter.close(),
    };
  }
  const directory = path.join(config.DATA_DIR, "outbox");
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    description: `files in ${directory}`,
    async send(email, from) {
      const info = await transporter.sendMail(await toNodemailerMessage(email, from));
      await fs.mkdir(directory, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      await fs.writeFile(
        path.join(directory, `${stamp}-${email.kind}-${email.id}.eml`),
        info.message as Buffer,
      );
    },
    close: () => transporter.close(),
  };
}
