import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database, Executor } from "#server/db/client.ts";
import { outboxMessages } from "#server/db/schema/index.ts";
import type { Sealer } from "#server/secrets.ts";

/** `<local@domain>`, as a Message-ID header holds it (RFC 5322). */
const messageIdSchema = z.string().regex(/^<[^<>\s@]+@[^<>\s@]+>$/);

export const outgoingEmailSchema = z.object({
  kind: z.string().min(1),
  to: z.email(),
  /** Instead of the site's sender (MAIL_FROM), e.g. the support address answering a message. */
  from: z.string().min(3).optional(),
  replyTo: z.email().optional(),
  /** Threading (RFC 5322): this message's id, the one it answers, and the thread before it. */
  messageId: messageIdSchema.optional(),
  inReplyTo: messageIdSchema.optional(),
  references: z.array(messageIdSchema).optional(),
  subject: z.string().min(1),
  text: z.string(),
  html: z.string().optional(),
  attachments: z
    .array(
      z.object({
        filename: z.string().min(1),
        content: z.string(),
        contentType: z.string().min(1),
        /**
         * Send a PNG of `content`'s QR code in its place, drawn when the message is sent: drawing
         * takes longer than the rest of the message, too long for the transaction that queues it.
         */
        asQrCode: z.literal(true).optional(),
        /** Shown inline where the HTML part says `cid:{contentId}`. */
        contentId: z.string().min(1).optional(),
      }),
    )
    .optional(),
});

export type OutgoingEmail = z.infer<typeof outgoingEmailSchema>;

export interface QueuedEmail extends OutgoingEmail {
  id: string;
  attempts: number;
}

/** Queues an e-mail inside the caller's transaction: it is sent only if that commits. */
export async function enqueueEmail(
  executor: Executor,
  sealer: Sealer,
  email: OutgoingEmail,
): Promise<string> {
  const [row] = outboxRows(sealer, [email]);
  await executor.insert(outboxMessages).values(row!);
  return row!.id;
}

/**
 * The outbox rows of these messages (validated, sealed), for a caller that inserts them within
 * a larger statement. Ids are chosen here, so the insert needs no RETURNING of the sealed text.
 */
export function outboxRows(sealer: Sealer, emails: OutgoingEmail[]) {
  return emails.map((email) => {
    const message = outgoingEmailSchema.parse(email);
    return {
      id: randomUUID(),
      kind: message.kind,
      toAddress: message.to,
      sealedMessage: sealer.seal(JSON.stringify(message)),
      // Due now by the app's clock, which the worker claims with: the database's now() carries
      // microseconds, so a message queued in the same millisecond as a wake-up looked not yet due.
      nextAttemptAt: new Date(),
    } satisfies typeof outboxMessages.$inferInsert;
  });
}

/**
 * How long a claim holds without renewal. The sending worker renews its claims every third of
 * it (`renewEmailClaims`), so a live sender keeps them however long a send takes, and a message
 * claimed by a process that died is due again this long after its last renewal: with the
 * worker's 5-second poll, another process takes it over within 15 s (decision 081).
 */
export const OUTBOX_LEASE_MS = 10_000;

/**
 * Claims due messages so that parallel workers (several app processes on one
 * PostgreSQL) never send the same message at the same time.
 */
export async function claimDueEmails(
  db: Database,
  sealer: Sealer,
  now: Date,
  limit: number,
): Promise<QueuedEmail[]> {
  const due = db
    .select({ id: outboxMessages.id })
    .from(outboxMessages)
    .where(
      and(
        eq(outboxMessages.status, "pending"),
        lte(outboxMessages.nextAttemptAt, now),
        or(isNull(outboxMessages.lockedUntil), lte(outboxMessages.lockedUntil, now)),
      ),
    )
    .orderBy(asc(outboxMessages.nextAttemptAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  const claimed = await db
    .update(outboxMessages)
    .set({ lockedUntil: new Date(now.getTime() + OUTBOX_LEASE_MS) })
    .where(sql`${outboxMessages.id} in ${due}`)
    .returning();
  return claimed.map((row) => ({
    ...(JSON.parse(sealer.unseal(row.sealedMessage)) as OutgoingEmail),
    id: row.id,
    attempts: row.attempts,
  }));
}

/** Extends the claims on these messages, still pending, to a full lease from `now`. */
export async function renewEmailClaims(db: Database, ids: string[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(outboxMessages)
    .set({ lockedUntil: new Date(now.getTime() + OUTBOX_LEASE_MS) })
    .where(and(inArray(outboxMessages.id, ids), eq(outboxMessages.status, "pending")));
}

export async function markEmailSent(db: Database, id: string, now: Date): Promise<void> {
  await db
    .update(outboxMessages)
    .set({ status: "sent", sentAt: now, lockedUntil: null, attempts: sql`${outboxMessages.attempts} + 1` })
    .where(eq(outboxMessages.id, id));
}

export const MAX_ATTEMPTS = 25;

/** Exponential backoff from 15 s up to one hour; after MAX_ATTEMPTS it is parked as failed for a person to look at. */
export function nextRetryDelayMs(attempts: number): number {
  return Math.min(15_000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

export async function markEmailFailed(
  db: Database,
  email: QueuedEmail,
  error: string,
  now: Date,
): Promise<void> {
  const attempts = email.attempts + 1;
  await db
    .update(outboxMessages)
    .set({
      attempts,
      lastError: error.slice(0, 500),
      lockedUntil: null,
      status: attempts >= MAX_ATTEMPTS ? "failed" : "pending",
      nextAttemptAt: new Date(now.getTime() + nextRetryDelayMs(attempts)),
    })
    .where(eq(outboxMessages.id, email.id));
}
