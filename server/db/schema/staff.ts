import { sql } from "drizzle-orm";
import { bigserial, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Every staff action, append-only: a trigger refuses UPDATE and DELETE (migration 0020), so not
 * even a bug in this app can rewrite what staff did. `staff_email` is copied, not joined, so an
 * entry survives its account.
 */
export const staffAuditLog = pgTable(
  "staff_audit_log",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    staffUserId: text().notNull(),
    staffEmail: text().notNull(),
    /** Dotted area.verb, e.g. `blog.publish`, `subscription.refund`. */
    action: text().notNull(),
    targetType: text().notNull(),
    targetId: text().notNull(),
    reason: text(),
    details: jsonb()
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
  },
  (table) => [
    index("staff_audit_log_at_id_idx").on(table.at, table.id),
    index("staff_audit_log_target_idx").on(table.targetType, table.targetId),
  ],
);
