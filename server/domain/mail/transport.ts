import fs from "node:fs/promises";
import path from "node:path";
import nodemailer from "nodemailer";
import type { Config } from "#server/config.ts";
import type { MailMessage } from "./compose.ts";

/** A rendered message with its outbox id and kind. */
export interface OutgoingEmail extends MailMessage {
  id: string;
  kind: string;
}

export interface MailTransport {
  /** Where messages go, for the start-up log line (never includes credentials). */
  description: string;
  send(email: OutgoingEmail, from: string): Promise<void>;
  close(): void;
}

function toNodemailerMessage(email: OutgoingEmail, from: string) {
  return {
    from,
    to: email.to,
    replyTo: email.replyTo,
    subject: email.subject,
    text: email.text,
    html: email.html,
    // A stable Message-ID lets a mailbox recognise a retry of a message that did arrive.
    messageId: `<${email.id}@naijalink.outbox>`,
    attachments: email.attachments?.map(({ contentId, ...attachment }) => ({
      ...attachment,
      cid: contentId,
    })),
  };
}

export function createMailTransport(config: Config): MailTransport {
  if (config.SMTP_URL) {
    const transporter = nodemailer.createTransport(config.SMTP_URL);
    const url = new URL(config.SMTP_URL);
    return {
      description: `SMTP ${url.hostname}:${url.port || "(default port)"}`,
      async send(email, from) {
        await transporter.sendMail(toNodemailerMessage(email, from));
      },
      close: () => transporter.close(),
    };
  }
  const directory = path.join(config.DATA_DIR, "outbox");
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    description: `files in ${directory}`,
    async send(email, from) {
      const info = await transporter.sendMail(toNodemailerMessage(email, from));
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
