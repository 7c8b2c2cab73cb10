import { z } from "zod";
import { contactMessages } from "#server/db/schema/index.ts";
import { rateLimited } from "#server/domain/errors.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";
import type { AppServices } from "#server/services.ts";
import { threadMessageId } from "./replies.ts";

export const CONTACT_LIMITS = {
  name: 100,
  email: 254,
  subject: 200,
  message: 5000,
} as const;

/** Per client address and per sender address: enough for a person, useless for a spammer. */
export const CONTACT_RATE_LIMITS = {
  perClient: { limit: 5, windowMs: 10 * 60_000 },
  perSender: { limit: 5, windowMs: 60 * 60_000 },
} as const;

// Name and subject end up in mail headers: one line each, whitespace collapsed.
const singleLine = (label: string, max: number) =>
  z
    .string({ error: `${label} is required.` })
    .transform((value) => value.replace(/\s+/g, " ").trim())
    .pipe(z.string().min(1, `${label} is required.`).max(max, `${label} must be at most ${max} characters.`));

export const contactMessageSchema = z.strictObject({
  name: singleLine("Name", CONTACT_LIMITS.name),
  email: z
    .string({ error: "Email is required." })
    .trim()
    .min(1, "Email is required.")
    .max(CONTACT_LIMITS.email, `Email must be at most ${CONTACT_LIMITS.email} characters.`)
    .pipe(z.email("Please enter a valid email address.")),
  subject: singleLine("Subject", CONTACT_LIMITS.subject),
  message: z
    .string({ error: "Message is required." })
    .trim()
    .min(1, "Message is required.")
    .max(CONTACT_LIMITS.message, `Message must be at most ${CONTACT_LIMITS.message} characters.`),
});

export type ContactMessage = z.infer<typeof contactMessageSchema>;

/**
 * Stores the message and queues it for the support inbox in one transaction, so a
 * message the visitor was told is sent is never lost: SMTP trouble only delays it.
 */
export async function submitContactMessage(
  services: AppServices,
  message: ContactMessage,
  clientIp: string,
): Promise<{ id: string }> {
  const { db, config, mail } = services;
  const perClient = await consumeRateLimit(db, `contact:ip:${clientIp}`, CONTACT_RATE_LIMITS.perClient);
  if (!perClient.allowed) throw rateLimited(perClient.retryAfterSeconds);
  const perSender = await consumeRateLimit(
    db,
    `contact:email:${message.email.toLowerCase()}`,
    CONTACT_RATE_LIMITS.perSender,
  );
  if (!perSender.allowed) throw rateLimited(perSender.retryAfterSeconds);

  const id = await db.transaction(async (tx) => {
    const [row] = await tx.insert(contactMessages).values(message).returning({ id: contactMessages.id });
    await mail.enqueue(tx, {
      template: "contact",
      to: config.SUPPORT_EMAIL,
      replyTo: message.email,
      data: message,
      // The thread that staff's replies from the console continue.
      thread: { messageId: threadMessageId("contact", row!.id, config.SUPPORT_EMAIL) },
    });
    return row!.id;
  });
  mail.wake();
  services.logger.info({ contactMessageId: id }, "contact message stored and queued");
  return { id };
}
