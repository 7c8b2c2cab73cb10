// The customers' own better-auth tables: a second auth instance for buyers, kept
// apart from the staff tables so that no staff session, token or row can ever be read as a
// customer's, and no customer's as staff.
import { index, pgTable, text, timestamp, boolean } from "drizzle-orm/pg-core";

/** A buyer who signed in at /account once; `email` is the verified address subscriptions carry. */
export const customerUser = pgTable("customer_user", {
  id: text().primaryKey(),
  name: text().notNull(),
  email: text().notNull().unique(),
  emailVerified: boolean().notNull().default(false),
  image: text(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

export const customerSession = pgTable(
  "customer_session",
  {
    id: text().primaryKey(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    token: text().notNull().unique(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    ipAddress: text(),
    userAgent: text(),
    userId: text()
      .notNull()
      .references(() => customerUser.id, { onDelete: "cascade" }),
  },
  (table) => [index("customer_session_user_id_idx").on(table.userId)],
);

/** better-auth requires the model; magic-link sign-in writes no rows here. */
export const customerAccount = pgTable(
  "customer_account",
  {
    id: text().primaryKey(),
    accountId: text().notNull(),
    providerId: text().notNull(),
    userId: text()
      .notNull()
      .references(() => customerUser.id, { onDelete: "cascade" }),
    accessToken: text(),
    refreshToken: text(),
    idToken: text(),
    accessTokenExpiresAt: timestamp({ withTimezone: true }),
    refreshTokenExpiresAt: timestamp({ withTimezone: true }),
    scope: text(),
    password: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("customer_account_user_id_idx").on(table.userId)],
);

/** Pending sign-in links, by the SHA-256 of their token (never the token itself). */
export const customerVerification = pgTable(
  "customer_verification",
  {
    id: text().primaryKey(),
    identifier: text().notNull(),
    value: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("customer_verification_identifier_idx").on(table.identifier)],
);
