import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

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

/**
 * Decision 078: `active` takes new devices; `draining` takes none while its devices keep working;
 * `disabled` takes none and its node is told to carry no peers (its devices stop connecting).
 */
export const VPN_SERVER_STATUSES = ["active", "draining", "disabled"] as const;
export type VpnServerStatus = (typeof VPN_SERVER_STATUSES)[number];

export const vpnServers = pgTable(
  "vpn_servers",
  {
    id: uuid().primaryKey().defaultRandom(),
    name: text().notNull().unique(),
    region: text().notNull().default("ng-lagos"),
    endpoint: text().notNull(),
    /** Null until the node's agent registers the key it generated; such a server takes no devices. */
    publicKey: text(),
    ipv4Cidr: text().notNull(),
    ipv6Cidr: text().notNull(),
    dns: text().notNull(),
    nodeTokenHash: text().notNull().unique(),
    status: text({ enum: VPN_SERVER_STATUSES }).notNull().default("active"),
    /** The placeholder server a demo store creates on first start; never used once a real one exists. */
    development: boolean().notNull().default(false),
    lastSeenAt: timestamp({ withTimezone: true }),
    /** The public addresses its traffic leaves from, canonical (`canonicalIpAddress`); /check reads them. */
    exitAddresses: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** The peer-set version the node agent last reported as applied. */
    appliedPeerVersion: text(),
    /** How many peers the node's interface held at its last report. */
    appliedPeerCount: integer(),
    /** The `MTU =` of its configs and the MTU of its node's interface (decision 090). */
    clientMtu: integer().notNull().default(1280),
    /** Extra UDP ports its node accepts WireGuard on, redirected to the listen port (decision 090). */
    alternatePorts: integer()
      .array()
      .notNull()
      .default(sql`'{443}'::integer[]`),
    /** Configs name the node's own resolver; false: the operator opted out and `dns` stays. */
    nodeResolver: boolean().notNull().default(true),
    /** The last change of what its configs say: configs handed out before are out of date. */
    clientConfigChangedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** The change whose re-download notices are all queued. */
    configNoticesQueuedFor: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /**
     * Allocation state (decision 044), kept by the `devices` trigger: the number of live devices,
     * and the high-water mark — every offset below it was handed out at least once and is now
     * either live or in `vpn_free_addresses`; offsets from it upwards were never used.
     */
    liveDevices: integer().notNull().default(0),
    nextAddressIndex: integer().notNull().default(2),
  },
  (table) => [
    index("vpn_servers_least_loaded_idx")
      .on(table.liveDevices, table.createdAt)
      .where(sql`${table.status} = 'active' and ${table.publicKey} is not null`),
    check("vpn_servers_status_check", sql`${table.status} in ('active', 'draining', 'disabled')`),
    check("vpn_servers_client_mtu_check", sql`${table.clientMtu} between 1280 and 1420`),
    check(
      "vpn_servers_alternate_ports_check",
      sql`cardinality(${table.alternatePorts}) <= 4
        and coalesce(array_ndims(${table.alternatePorts}), 1) = 1
        and array_position(${table.alternatePorts}, null) is null
        and 1 <= all(${table.alternatePorts}) and 65535 >= all(${table.alternatePorts})
        and not (substring(${table.endpoint} from ':([0-9]+)$')::integer = any(${table.alternatePorts}))`,
    ),
    // Two servers with one key would make every config of one of them point at the other node.
    uniqueIndex("vpn_servers_public_key_unique").on(table.publicKey),
  ],
);

/** Released offsets below a server's high-water mark, reused lowest first (decision 044). */
export const vpnFreeAddresses = pgTable(
  "vpn_free_addresses",
  {
    serverId: uuid()
      .notNull()
      .references(() => vpnServers.id, { onDelete: "cascade" }),
    addressIndex: integer().notNull(),
  },
  (table) => [primaryKey({ columns: [table.serverId, table.addressIndex] })],
);

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
  },
  (table) => [
    index("subscriptions_expires_at_idx").on(table.expiresAt),
    // A signed-in customer's subscriptions (decision 067).
    index("subscriptions_customer_email_idx").on(sql`lower(${table.customerEmail})`),
    // The CSV export reads a date range a page at a time in this order (decision 106).
    index("subscriptions_created_at_id_idx").on(table.createdAt, table.id),
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
    /** The first use (spec §4 refund rules): page download, QR shown or WireGuard handshake (decision 064). */
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

/**
 * The node change feed (decision 046), written only by database triggers on `devices` and
 * `subscriptions`: each write that may change a server's peers bumps that server's version and
 * logs the public keys it touched under the new version. Versions of one server are handed out
 * under the row lock of its `vpn_peer_versions` row, so they follow commit order.
 */
export const vpnPeerVersions = pgTable("vpn_peer_versions", {
  serverId: uuid()
    .primaryKey()
    .references(() => vpnServers.id, { onDelete: "cascade" }),
  version: integer().notNull().default(0),
});

export const vpnPeerChanges = pgTable(
  "vpn_peer_changes",
  {
    serverId: uuid()
      .notNull()
      .references(() => vpnServers.id, { onDelete: "cascade" }),
    version: integer().notNull(),
    publicKey: text().notNull(),
    changedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.serverId, table.version, table.publicKey] })],
);

/**
 * The per-visit names /check has a browser resolve, as a node's resolver reported them
 * (decision 091); kept 10 minutes.
 */
export const dnsChecks = pgTable(
  "dns_checks",
  {
    nonce: text().primaryKey(),
    serverId: uuid()
      .notNull()
      .references(() => vpnServers.id, { onDelete: "cascade" }),
    seenAt: timestamp({ withTimezone: true }).notNull(),
  },
  (table) => [index("dns_checks_seen_at_idx").on(table.seenAt)],
);

export type VpnServer = typeof vpnServers.$inferSelect;
export type Subscription = typeof subscriptions.$inferSelect;
export type Device = typeof devices.$inferSelect;
