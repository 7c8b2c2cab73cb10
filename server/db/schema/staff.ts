import { sql } from "drizzle-orm";
import { bigserial, check, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const AUDIT_ACTORS = ["staff", "customer"] as const;
export type AuditActor = (typeof AUDIT_ACTORS)[number];

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
    /**
     * Who acted: a staff member, or a customer for what they started themselves (a refund under
     * the 7-day guarantee, decision 136); the two columns below then hold the customer's id and address.
     */
    actor: text({ enum: AUDIT_ACTORS }).notNull().default("staff"),
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
    check("staff_audit_log_actor_check", sql`${table.actor} in ('staff', 'customer')`),
  ],
);
