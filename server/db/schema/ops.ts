import { sql } from "drizzle-orm";
import { pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/**
 * One row per outage a staff alert was sent for (decision 083). The partial unique index lets
 * one open row exist per key: of several app processes noticing the same outage, one inserts it
 * and sends the e-mail. A resolved row stays as history; the next outage opens a new one.
 */
export const staffAlerts = pgTable(
  "staff_alerts",
  {
    id: uuid().primaryKey().defaultRandom(),
    /** What is wrong, e.g. `node-silent:<server id>`, `outbox-stuck`, `configuration-pending`. */
    key: text().notNull(),
    openedAt: timestamp({ withTimezone: true }).notNull(),
    resolvedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    uniqueIndex("staff_alerts_open_key_unique")
      .on(table.key)
      .where(sql`${table.resolvedAt} is null`),
  ],
);

export type StaffAlert = typeof staffAlerts.$inferSelect;
