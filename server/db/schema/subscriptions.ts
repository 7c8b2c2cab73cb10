import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { vpnServers } from "./vpn.ts";

// A subscription (what a buyer bought) and the devices it holds on the VPN servers (vpn.ts).

export const PLAN_TYPES = ["unlock", "basic", "pro_monthly", "pro_yearly"] as const;
export type PlanType = (typeof PLAN_TYPES)[number];

export const SUBSCRIPTION_STATUSES = [
  "active",
  "past_due",
  "canceled",
  "expired",
  "refunded",
  "disputed",
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const ACTIVATION_KINDS = ["download", "qr", "handshake"] as const;
export type ActivationKind = (typeof ACTIVATION_KINDS)[number];

export const subscriptions = pgTable(
  "subscriptions",
  {
    id: uuid().primaryKey().defaultRandom(),
    planId: text().notNull(),
    planType: text({ enum: PLAN_TYPES }).notNull(),
    deviceLimit: integer().notNull(),
    status: text({ enum: SUBSCRIPTION_STATUSES }).notNull().default("active"),
    customerEmail: text(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    cancelAtPeriodEnd: boolean().notNull().default(false),
    checkoutSessionId: text().notNull().unique(),
    stripeCustomerId: text(),
    stripeSubscriptionId: text().unique(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /**
     * Whether a device row of slot 1 exists for it (revoked or not): kept by triggers on `devices`
     * (migration 0081, decision 138), never written by the app. The waiting-buyers rule reads the
     * few without one from the partial index below instead of every usable subscription.
     */
    hasSlotOne: boolean().notNull().default(false),
  },
  (table) => [
    index("subscriptions_expires_at_idx").on(table.expiresAt),
    // Subscriptions that never got slot 1 (decision 138): the waiting-buyers rule's candidates.
    index("subscriptions_without_slot_one_idx")
      .on(table.createdAt)
      .where(sql`not ${table.hasSlotOne}`),
    // A signed-in customer's subscriptions (decision 067).
    index("subscriptions_customer_email_idx").on(sql`lower(${table.customerEmail})`),
    // The CSV export reads a date range a page at a time in this order (decision 106).
    index("subscriptions_created_at_id_idx").on(table.createdAt, table.id),
    // The usable subscriptions counted (dashboard, metrics) without reading the ended ones (decision 131).
    index("subscriptions_status_expires_at_idx").on(table.status, table.expiresAt),
    // The console's search by Stripe customer.
    index("subscriptions_stripe_customer_id_idx").on(table.stripeCustomerId),
    // The console's "contains" search of addresses (`ilike '%…%'`): trigrams (decision 138).
    index("subscriptions_customer_email_trgm_idx").using("gin", table.customerEmail.op("gin_trgm_ops")),
  ],
);

export const devices = pgTable(
  "devices",
  {
    id: uuid().primaryKey().defaultRandom(),
    subscriptionId: uuid()
      .notNull()
      .references(() => subscriptions.id, { onDelete: "cascade" }),
    slot: integer().notNull(),
    name: text(),
    /** Null only for a revoked device whose server was removed (`removeServer`). */
    vpnServerId: uuid().references(() => vpnServers.id, { onDelete: "set null" }),
    publicKey: text().notNull().unique(),
    privateKeySealed: text().notNull(),
    presharedKeySealed: text().notNull(),
    /** Host offset inside the server's pools; IPv4 and IPv6 are both derived from it. */
    addressIndex: integer().notNull(),
    ipv4: text().notNull(),
    ipv6: text().notNull(),
    downloadTokenHash: text().notNull().unique(),
    /** The capability token itself, sealed, so the success page can show the same link again. */
    downloadTokenSealed: text().notNull(),
    /** The first use (docs/product.md §3.3): page download, QR shown or WireGuard handshake (decision 064). */
    activatedAt: timestamp({ withTimezone: true }),
    activatedVia: text({ enum: ACTIVATION_KINDS }),
    revokedAt: timestamp({ withTimezone: true }),
    /** The latest WireGuard handshake the node agent reported for this peer. */
    lastHandshakeAt: timestamp({ withTimezone: true }),
    /**
     * Data moved in one subscription period (decision 073): null until the agent first reports
     * the peer's transfer counters; the sums below belong to the period that began then.
     */
    transferPeriodStart: timestamp({ withTimezone: true }),
    /** Bytes the server received from the device (its uploads) in that period. */
    transferRxBytes: bigint({ mode: "number" }).notNull().default(0),
    /** Bytes the server sent to the device (its downloads) in that period. */
    transferTxBytes: bigint({ mode: "number" }).notNull().default(0),
    /** The last raw WireGuard counters reported, and the server whose interface counted them. */
    transferCountersServerId: uuid(),
    transferCountersRx: bigint({ mode: "number" }),
    transferCountersTx: bigint({ mode: "number" }),
    /** When its config was last handed out (download, QR, e-mail); older than its server's change: out of date. */
    configIssuedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** When its owner was last e-mailed that its config is out of date. */
    configNoticeAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check("devices_activated_via_check", sql`${table.activatedVia} in ('download', 'qr', 'handshake')`),
    check(
      "devices_live_on_a_server",
      sql`${table.revokedAt} is not null or ${table.vpnServerId} is not null`,
    ),
    index("devices_server_live_idx")
      .on(table.vpnServerId)
      .where(sql`${table.revokedAt} is null`),
    // A revoked device frees its slot (decision 067); a live slot is held by one device.
    uniqueIndex("devices_subscription_slot_live_unique")
      .on(table.subscriptionId, table.slot)
      .where(sql`${table.revokedAt} is null`),
    // Every device of a subscription, revoked ones too (its staff page, decision 131).
    index("devices_subscription_idx").on(table.subscriptionId, table.slot),
    // The dashboard's devices issued in the last 30 days.
    index("devices_created_at_idx").on(table.createdAt),
    // The console's search by address, revoked devices too.
    index("devices_ipv4_idx").on(table.ipv4),
    index("devices_ipv6_idx").on(table.ipv6),
    // Each server's connected devices and latest handshake (server health, staff alerts).
    index("devices_server_handshake_idx")
      .on(table.vpnServerId, table.lastHandshakeAt)
      .where(sql`${table.revokedAt} is null`),
    uniqueIndex("devices_server_address_live_unique")
      .on(table.vpnServerId, table.addressIndex)
      .where(sql`${table.revokedAt} is null`),
    uniqueIndex("devices_server_ipv4_live_unique")
      .on(table.vpnServerId, table.ipv4)
      .where(sql`${table.revokedAt} is null`),
    uniqueIndex("devices_server_ipv6_live_unique")
      .on(table.vpnServerId, table.ipv6)
      .where(sql`${table.revokedAt} is null`),
  ],
);

export type Subscription = typeof subscriptions.$inferSelect;
export type Device = typeof devices.$inferSelect;
