import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { subscriptions } from "./subscriptions.ts";

export const OUTBOX_STATUSES = ["pending", "sent", "failed"] as const;

/**
 * Durable e-mail queue. The message itself (addresses aside) is sealed with the
 * at-rest key because config e-mails carry WireGuard private keys.
 */
export const outboxMessages = pgTable(
  "outbox_messages",
  {
    id: uuid().primaryKey().defaultRandom(),
    kind: text().notNull(),
    toAddress: text().notNull(),
    sealedMessage: text().notNull(),
    status: text({ enum: OUTBOX_STATUSES }).notNull().default("pending"),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    lockedUntil: timestamp({ withTimezone: true }),
    lastError: text(),
    sentAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index("outbox_messages_due_idx")
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'pending'`),
    // Housekeeping's sent e-mails past retention, and the backlog by status (decision 131).
    index("outbox_messages_status_sent_at_idx").on(table.status, table.sentAt),
    // A subscription page's e-mails to its customer, newest first.
    index("outbox_messages_to_address_idx").on(sql`lower(${table.toAddress})`, table.createdAt),
  ],
);

export const CONTACT_MESSAGE_STATUSES = ["new", "answered", "closed"] as const;
export type ContactMessageStatus = (typeof CONTACT_MESSAGE_STATUSES)[number];

/**
 * What visitors sent through the contact form, kept for the staff inbox (/admin/messages).
 * A closed message is removed after a retention period (housekeeping).
 */
export const contactMessages = pgTable(
  "contact_messages",
  {
    id: uuid().primaryKey().defaultRandom(),
    name: text().notNull(),
    email: text().notNull(),
    subject: text().notNull(),
    message: text().notNull(),
    status: text({ enum: CONTACT_MESSAGE_STATUSES }).notNull().default("new"),
    statusChangedAt: timestamp({ withTimezone: true }),
    /** The staff e-mail that last changed the status (the audit log has the full history). */
    statusChangedBy: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check("contact_messages_status_check", sql`${table.status} in ('new', 'answered', 'closed')`),
    // Housekeeping counts a closed message's age from when it was closed.
    check(
      "contact_messages_status_changed_check",
      sql`${table.status} = 'new' or ${table.statusChangedAt} is not null`,
    ),
    index("contact_messages_status_created_at_idx").on(table.status, table.createdAt),
    index("contact_messages_created_at_idx").on(table.createdAt),
  ],
);

/**
 * Staff's answers to a contact message, written in /admin/messages and sent from the support
 * address through the outbox. They go with the message when it is purged.
 */
export const contactMessageReplies = pgTable(
  "contact_message_replies",
  {
    id: uuid().primaryKey().defaultRandom(),
    messageId: uuid()
      .notNull()
      .references(() => contactMessages.id, { onDelete: "cascade" }),
    body: text().notNull(),
    /** Who wrote it; the e-mail is copied, so the reply keeps its author after the account goes. */
    staffUserId: text().notNull(),
    staffEmail: text().notNull(),
    /** The queued e-mail, to tell whether it went out (sent outbox rows are purged after 30 days). */
    outboxId: uuid(),
    sentAt: timestamp({ withTimezone: true }).notNull(),
  },
  (table) => [index("contact_message_replies_message_idx").on(table.messageId, table.sentAt)],
);

export const SUBSCRIPTION_NOTICE_KINDS = ["renewal-reminder", "pass-ending"] as const;
export type SubscriptionNoticeKind = (typeof SUBSCRIPTION_NOTICE_KINDS)[number];

/**
 * Scheduled customer e-mails already queued, one row per subscription, kind and period (the
 * `expiresAt` it was about): the key makes a reminder go once per period, however often the job
 * runs and however many processes run it.
 */
export const subscriptionNotices = pgTable(
  "subscription_notices",
  {
    subscriptionId: uuid()
      .notNull()
      .references(() => subscriptions.id, { onDelete: "cascade" }),
    kind: text({ enum: SUBSCRIPTION_NOTICE_KINDS }).notNull(),
    periodEndsAt: timestamp({ withTimezone: true }).notNull(),
    queuedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.subscriptionId, table.kind, table.periodEndsAt] })],
);
