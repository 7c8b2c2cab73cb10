import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database, Executor } from "#server/db/client.ts";
import { outboxMessages } from "#server/db/schema/index.ts";
import type { Sealer } from "#server/secrets.ts";
import {
  emailDataSchema,
  emailEnvelopeSchema,
  isEmailTemplate,
  type EmailRequest,
  type EmailTemplate,
} from "./email-data.ts";

/**
 * A message as the outbox stores it, sealed with the at-rest key (a config e-mail's data holds the
 * device's private key): its template, the template's data (JSON), who gets it.
 */
const templatedEmailSchema = emailEnvelopeSchema.extend({
  template: z.string().refine(isEmailTemplate),
  to: z.email(),
  replyTo: z.email().optional(),
  data: z.unknown(),
});

/**
 * A message queued before decision 098, already rendered: sent as it is, so an upgrade loses none.
 * Its QR attachment (`asQrCode`) is drawn from `content` when it is sent.
 */
const renderedEmailSchema = z.object({
  kind: z.string(),
  to: z.email(),
  replyTo: z.email().optional(),
  subject: z.string(),
  text: z.string(),
  html: z.string().optional(),
  attachments: z
    .array(
      z.object({
        filename: z.string(),
        content: z.string(),
        contentType: z.string(),
        asQrCode: z.literal(true).optional(),
        contentId: z.string().optional(),
      }),
    )
    .optional(),
});

export type StoredEmail =
  (z.infer<typeof templatedEmailSchema> & { template: EmailTemplate }) | z.infer<typeof renderedEmailSchema>;

const storedEmailSchema = z.union([templatedEmailSchema, renderedEmailSchema]);

export function unsealStoredEmail(sealer: Sealer, sealedMessage: string): StoredEmail {
  return storedEmailSchema.parse(JSON.parse(sealer.unseal(sealedMessage))) as StoredEmail;
}

/** A claimed message; the worker unseals and renders it as it sends it. */
export type QueuedEmail = Pick<
  typeof outboxMessages.$inferSelect,
  "id" | "kind" | "attempts" | "sealedMessage"
>;

/**
 * Queues an e-mail inside the caller's transaction: it is sent only if that commits. Only its
 * data is stored (checked against its template's schema here); the worker renders it when it
 * sends, so the transaction never waits for a render.
 */
export async function enqueueEmail(executor: Executor, sealer: Sealer, email: EmailRequest): Promise<string> {
  const row = outboxRow(sealer, email);
  await executor.insert(outboxMessages).values(row);
  return row.id;
}

/** What the outbox stores of this message: checked against its template's schema, dates as text. */
export function storedEmailOf(email: EmailRequest): StoredEmail {
  return templatedEmailSchema.parse({
    template: email.template,
    to: email.to,
    replyTo: email.replyTo,
    from: email.from,
    thread: email.thread,
    data: z.encode(emailDataSchema(email.template), email.data),
  }) as StoredEmail;
}

/** The outbox row of this message (validated, sealed); its id is chosen here, so no RETURNING. */
function outboxRow(sealer: Sealer, email: EmailRequest) {
  const stored = storedEmailOf(email);
  return {
    id: randomUUID(),
    kind: email.template,
    toAddress: stored.to,
    sealedMessage: sealer.seal(JSON.stringify(stored)),
    // Due now by the app's clock, which the worker claims with: the database's now() carries
    // microseconds, so a message queued in the same millisecond as a wake-up looked not yet due.
    nextAttemptAt: new Date(),
  } satisfies typeof outboxMessages.$inferInsert;
}

/**
 * How long a claim holds without renewal. The sending worker renews its claims every third of
 * it (`renewEmailClaims`), so a live sender keeps them however long a send takes, and a message
 * claimed by a process that died is due again this long after its last renewal: with the
 * worker's 5-second poll, another process takes it over within 15 s.
 */
export const OUTBOX_LEASE_MS = 10_000;

/**
 * Claims due messages so that parallel workers (several app processes on one
 * PostgreSQL) never send the same message at the same time.
 */
export async function claimDueEmails(db: Database, now: Date, limit: number): Promise<QueuedEmail[]> {
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
    .returning({
      id: outboxMessages.id,
      kind: outboxMessages.kind,
      attempts: outboxMessages.attempts,
      sealedMessage: outboxMessages.sealedMessage,
    });
  return claimed;
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
