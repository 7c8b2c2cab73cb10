import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const CHECKOUT_STATUSES = ["open", "paid", "expired"] as const;

export const checkoutSessions = pgTable("checkout_sessions", {
  id: text().primaryKey(),
  provider: text({ enum: ["stripe", "test"] }).notNull(),
  planId: text().notNull(),
  customerEmail: text(),
  amountCents: integer().notNull(),
  currency: text().notNull().default("usd"),
  status: text({ enum: CHECKOUT_STATUSES }).notNull().default("open"),
  paymentReference: text(),
  /** SHA-256 of the paying browser's buyer cookie: the proof that may add devices (decision 063). */
  buyerTokenHash: text(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  paidAt: timestamp({ withTimezone: true }),
});

/** Payment-provider events already handled; a replay finds its id here and changes nothing. */
export const paymentEvents = pgTable("payment_events", {
  id: text().primaryKey(),
  type: text().notNull(),
  receivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

export type CheckoutSession = typeof checkoutSessions.$inferSelect;
