import { randomUUID } from "node:crypto";
import { asc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "#server/db/client.ts";
import { contactMessageReplies, contactMessages, outboxMessages } from "#server/db/schema/index.ts";
import { notFound } from "#server/domain/errors.ts";
import { recordStaffAction, type StaffActor } from "#server/domain/ops/audit.ts";
import type { AppServices } from "#server/services.ts";

// Answering a contact message from the console (issue 24): the reply goes from the
// support address through the outbox, threaded with the customer's message, and is kept on it.

export const REPLY_LIMIT = 10_000;

/** The reply form of /admin/messages. */
export const messageReplySchema = z.strictObject({
  id: z.uuid("Give the id of a message."),
  body: z
    .string()
    .trim()
    .min(1, "Write the reply first.")
    .max(REPLY_LIMIT, `Keep the reply under ${REPLY_LIMIT} characters.`),
});

/** The Message-ID of a message in a contact thread, on the support address's domain (RFC 5322). */
export function threadMessageId(kind: "contact" | "reply", id: string, supportEmail: string): string {
  return `<${kind}-${id}@${supportEmail.slice(supportEmail.lastIndexOf("@") + 1)}>`;
}

export interface MessageReply {
  id: string;
  body: string;
  staffEmail: string;
  sentAt: string;
  /** What the outbox says of its e-mail; null once the outbox no longer keeps it. */
  delivery: "sent" | "waiting" | "failed" | null;
}

const DELIVERY = { sent: "sent", pending: "waiting", failed: "failed" } as const;

/** The replies to each of these messages, oldest first. */
export async function repliesOf(
  executor: Executor,
  messageIds: string[],
): Promise<Map<string, MessageReply[]>> {
  const byMessage = new Map<string, MessageReply[]>();
  if (messageIds.length === 0) return byMessage;
  const rows = await executor
    .select({ reply: contactMessageReplies, outboxStatus: outboxMessages.status })
    .from(contactMessageReplies)
    .leftJoin(outboxMessages, eq(outboxMessages.id, contactMessageReplies.outboxId))
    .where(inArray(contactMessageReplies.messageId, messageIds))
    .orderBy(asc(contactMessageReplies.sentAt), asc(contactMessageReplies.id));
  for (const { reply, outboxStatus } of rows) {
    const list = byMessage.get(reply.messageId) ?? [];
    list.push({
      id: reply.id,
      body: reply.body,
      staffEmail: reply.staffEmail,
      sentAt: reply.sentAt.toISOString(),
      delivery: outboxStatus ? DELIVERY[outboxStatus] : null,
    });
    byMessage.set(reply.messageId, list);
  }
  return byMessage;
}

/**
 * Sends `body` to the message's sender from the support address and keeps it on the message:
 * in one transaction the reply is stored, its e-mail queued (Message-ID, In-Reply-To and
 * References chain it to the customer's message and the replies before it), a new or closed
 * message becomes answered, and the audit log records `message.reply`.
 */
export async function replyToMessage(
  services: Pick<AppServices, "db" | "config" | "mail">,
  staff: StaffActor,
  input: z.infer<typeof messageReplySchema>,
  now = new Date(),
): Promise<{ id: string; replyId: string }> {
  const { db, config, mail } = services;
  const [found] = await db.select().from(contactMessages).where(eq(contactMessages.id, input.id));
  if (!found) throw notFound("There is no such message.");
  const replyId = await db.transaction(async (tx) => {
    const [message] = await tx
      .select({ status: contactMessages.status })
      .from(contactMessages)
      .where(eq(contactMessages.id, input.id))
      .for("update");
    if (!message) throw notFound("There is no such message.");
    const earlier = await tx
      .select({ id: contactMessageReplies.id })
      .from(contactMessageReplies)
      .where(eq(contactMessageReplies.messageId, input.id))
      .orderBy(asc(contactMessageReplies.sentAt), asc(contactMessageReplies.id));
    const id = randomUUID();
    const thread = [
      threadMessageId("contact", input.id, config.SUPPORT_EMAIL),
      ...earlier.map((reply) => threadMessageId("reply", reply.id, config.SUPPORT_EMAIL)),
    ];
    const outboxId = await mail.enqueue(tx, {
      template: "support-reply",
      to: found.email,
      from: `${config.BRAND_NAME} Support <${config.SUPPORT_EMAIL}>`,
      replyTo: config.SUPPORT_EMAIL,
      thread: {
        messageId: threadMessageId("reply", id, config.SUPPORT_EMAIL),
        inReplyTo: thread.at(-1),
        references: thread,
      },
      data: {
        name: found.name,
        subject: found.subject,
        body: input.body,
        original: { message: found.message, sentAt: found.createdAt },
      },
    });
    await tx.insert(contactMessageReplies).values({
      id,
      messageId: input.id,
      body: input.body,
      staffUserId: staff.id,
      staffEmail: staff.email,
      outboxId,
      sentAt: now,
    });
    const answered = message.status !== "answered";
    if (answered)
      await tx
        .update(contactMessages)
        .set({ status: "answered", statusChangedAt: now, statusChangedBy: staff.email })
        .where(eq(contactMessages.id, input.id));
    await recordStaffAction(
      tx,
      staff,
      {
        action: "message.reply",
        targetType: "message",
        targetId: input.id,
        details: { replyId: id, ...(answered ? { from: message.status, to: "answered" } : {}) },
      },
      now,
    );
    return id;
  });
  mail.wake();
  return { id: input.id, replyId };
}
