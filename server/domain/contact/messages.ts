import { and, count, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { findPlan } from "#core/plans.ts";
import type { Database } from "#server/db/client.ts";
import {
  CONTACT_MESSAGE_STATUSES,
  contactMessages,
  subscriptions,
  type ContactMessageStatus,
} from "#server/db/schema/index.ts";
import { conflict, notFound } from "#server/domain/errors.ts";
import { recordStaffAction, staffReasonSchema, type StaffActor } from "#server/domain/ops/audit.ts";
import { endedStatusOf, isUsable } from "#server/domain/vpn/usable.ts";
import { repliesOf, type MessageReply } from "./replies.ts";

// The staff side of the contact form (issue 15): the inbox of stored messages, their
// status, and the sender's subscriptions beside each one.

export const MESSAGES_PAGE_SIZE = 20;

/** POST /api/admin/messages and the /admin/messages page: newest first, optionally one status or one message. */
export const messageListQuerySchema = z.strictObject({
  status: z.enum(CONTACT_MESSAGE_STATUSES).optional(),
  /** One message (what an audit entry links to). */
  id: z.uuid("Give the id of a message.").optional(),
  page: z.number().int().min(1).max(100_000).default(1),
});

/**
 * POST /api/admin/messages/status: mark answered, close or reopen (back to new). Low-risk, so a
 * reason is optional (issue 24); the change is audited either way.
 */
export const messageStatusChangeSchema = z.strictObject({
  id: z.uuid("Give the id of a message."),
  status: z.enum(CONTACT_MESSAGE_STATUSES),
  reason: staffReasonSchema.optional(),
});

/** The audit action of moving a message to each status. */
const STATUS_ACTIONS: Record<ContactMessageStatus, string> = {
  new: "message.reopen",
  answered: "message.answer",
  closed: "message.close",
};

export interface CustomerSubscription {
  id: string;
  planName: string;
  /** The stored status, or how it stands today (expired, cancels at period end). */
  status: string;
  expiresAt: string;
  href: string;
}

export interface StaffMessage {
  id: string;
  name: string;
  email: string;
  subject: string;
  message: string;
  status: ContactMessageStatus;
  createdAt: string;
  statusChangedAt: string | null;
  statusChangedBy: string | null;
  /** Staff's replies from the console, oldest first. */
  replies: MessageReply[];
  /** The subscriptions bought with the sender's e-mail (any case). */
  subscriptions: CustomerSubscription[];
}

export interface MessagePage {
  messages: StaffMessage[];
  page: number;
  pageCount: number;
  total: number;
}

async function subscriptionsByEmail(
  db: Database,
  emails: string[],
  now: Date,
): Promise<Map<string, CustomerSubscription[]>> {
  const byEmail = new Map<string, CustomerSubscription[]>();
  if (emails.length === 0) return byEmail;
  const email = sql<string>`lower(${subscriptions.customerEmail})`;
  const rows = await db
    .select({ email, subscription: subscriptions })
    .from(subscriptions)
    .where(inArray(email, emails))
    .orderBy(desc(subscriptions.createdAt));
  for (const { email, subscription } of rows) {
    const usable = isUsable(subscription, now);
    const status = !usable
      ? endedStatusOf(subscription)
      : subscription.cancelAtPeriodEnd
        ? "cancels at period end"
        : subscription.status;
    const list = byEmail.get(email) ?? [];
    list.push({
      id: subscription.id,
      planName: findPlan(subscription.planId)?.name ?? subscription.planId,
      status,
      expiresAt: subscription.expiresAt.toISOString(),
      href: `/admin/subscriptions/${subscription.id}`,
    });
    byEmail.set(email, list);
  }
  return byEmail;
}

export async function listMessages(
  db: Database,
  query: z.infer<typeof messageListQuerySchema>,
  now = new Date(),
): Promise<MessagePage> {
  const where: SQL | undefined = and(
    query.status ? eq(contactMessages.status, query.status) : undefined,
    query.id ? eq(contactMessages.id, query.id) : undefined,
  );
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(contactMessages).where(where);
  const rows = await db
    .select()
    .from(contactMessages)
    .where(where)
    .orderBy(desc(contactMessages.createdAt), desc(contactMessages.id))
    .limit(MESSAGES_PAGE_SIZE)
    .offset((query.page - 1) * MESSAGES_PAGE_SIZE);
  const [customers, replies] = await Promise.all([
    subscriptionsByEmail(db, [...new Set(rows.map((row) => row.email.toLowerCase()))], now),
    repliesOf(
      db,
      rows.map((row) => row.id),
    ),
  ]);
  return {
    messages: rows.map((row) => ({
      id: row.id,
      name: row.name,
      email: row.email,
      subject: row.subject,
      message: row.message,
      status: row.status,
      createdAt: row.createdAt.toISOString(),
      statusChangedAt: row.statusChangedAt?.toISOString() ?? null,
      statusChangedBy: row.statusChangedBy,
      replies: replies.get(row.id) ?? [],
      subscriptions: customers.get(row.email.toLowerCase()) ?? [],
    })),
    page: query.page,
    pageCount: Math.max(1, Math.ceil(total / MESSAGES_PAGE_SIZE)),
    total,
  };
}

/** Moves a message to `status` and records it in the audit log, in one transaction. */
export async function changeMessageStatus(
  db: Database,
  staff: StaffActor,
  change: z.infer<typeof messageStatusChangeSchema>,
  now = new Date(),
): Promise<{ id: string; status: ContactMessageStatus }> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ status: contactMessages.status })
      .from(contactMessages)
      .where(eq(contactMessages.id, change.id))
      .for("update");
    if (!current) throw notFound("There is no such message.");
    if (current.status === change.status) throw conflict(`This message is already ${change.status}.`);
    await tx
      .update(contactMessages)
      .set({ status: change.status, statusChangedAt: now, statusChangedBy: staff.email })
      .where(eq(contactMessages.id, change.id));
    await recordStaffAction(
      tx,
      staff,
      {
        action: STATUS_ACTIONS[change.status],
        targetType: "message",
        targetId: change.id,
        reason: change.reason ?? null,
        details: { from: current.status, to: change.status },
      },
      now,
    );
    return { id: change.id, status: change.status };
  });
}
