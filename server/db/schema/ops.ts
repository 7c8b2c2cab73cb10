import { sql } from "drizzle-orm";
import { bigint, check, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

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
 * process given another key cannot open it and refuses to start (decision 081), instead of
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
