import { sql } from "drizzle-orm";
import { bigint, check, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/**
 * One row per outage a staff alert was sent for. The partial unique index lets
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

/**
 * The last tick each scheduled job ran in (decision 081): a tick is the job's interval counted
 * from the epoch, and the process that moves `tick` forward runs it; the others skip.
 */
export const jobTicks = pgTable("job_ticks", {
  job: text().primaryKey(),
  tick: bigint({ mode: "number" }).notNull(),
  ranAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/**
 * One value sealed with the at-rest key by the first process that started on this database: a
 * process given another key cannot open it and refuses to start, instead of
 * sealing new data that the others cannot read.
 */
export const sealingKeyCheck = pgTable(
  "sealing_key_check",
  {
    id: integer().primaryKey().default(1),
    sealed: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [check("sealing_key_check_one_row", sql`${table.id} = 1`)],
);
