import { bigint, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The last tick each scheduled job ran in (decision 081): a tick is the job's interval counted from
 * the epoch, and the process that moves `tick` forward runs it; the others skip.
 */
export const jobTicks = pgTable("job_ticks", {
  job: text().primaryKey(),
  tick: bigint({ mode: "number" }).notNull(),
  ranAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
