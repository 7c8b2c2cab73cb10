// The outbox as the mail worker sees it: queued rows rendered from their template and data.
import { asc, type SQL } from "drizzle-orm";
import { outboxMessages } from "#server/db/schema/index.ts";
import { composeEmail, type MailMessage } from "#server/domain/mail/compose.ts";
import type { EmailData, EmailRequest, EmailTemplate } from "#server/domain/mail/email-data.ts";
import { storedEmailOf, unsealStoredEmail, type StoredEmail } from "#server/domain/mail/outbox.ts";
import type { EmailSite } from "#server/domain/mail/templates/layout.tsx";
import type { OutgoingEmail } from "#server/domain/mail/transport.ts";
import type { AppServices } from "#server/services.ts";

/** The queued e-mails that match `where`, oldest first, rendered as the worker will send them. */
export async function queuedEmailsWhere(
  services: Pick<AppServices, "db" | "sealer" | "config">,
  where?: SQL,
): Promise<OutgoingEmail[]> {
  const rows = await services.db
    .select()
    .from(outboxMessages)
    .where(where)
    .orderBy(asc(outboxMessages.createdAt));
  return Promise.all(
    rows.map(async (row) => ({
      id: row.id,
      kind: row.kind,
      ...(await composeEmail(services.config, unsealStoredEmail(services.sealer, row.sealedMessage))),
    })),
  );
}

/** A contact-form message to queue in tests that need any e-mail in the outbox. */
export function contactEmail(subject = "A question", to = "support@naijalink.example") {
  return {
    template: "contact" as const,
    to,
    replyTo: "ada@example.com",
    data: { name: "Ada", email: "ada@example.com", subject, message: "Hello" },
  };
}

/** A queued request as the recipient gets it: stored as the outbox stores it (JSON), then rendered. */
export async function renderAsSent(
  site: EmailSite,
  email: EmailRequest,
): Promise<MailMessage & { kind: string }> {
  const stored = JSON.parse(JSON.stringify(storedEmailOf(email))) as StoredEmail;
  return { kind: email.template, ...(await composeEmail(site, stored)) };
}

/** One template's e-mail as the recipient gets it. */
export function previewEmail<T extends EmailTemplate>(
  site: EmailSite,
  template: T,
  data: EmailData<T>,
): Promise<MailMessage> {
  return renderAsSent(site, { template, data, to: "reader@example.com" } as EmailRequest);
}
