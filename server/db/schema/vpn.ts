import { sql } from "drizzle-orm";
import {
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
    /**
     * The node settings (MTU, alternate ports, resolver) as desired state (decision 129): a new
     * version each change, when the last one was made, and what the agent reported it applied.
     */
    settingsVersion: integer().notNull().default(1),
    settingsChangedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    appliedSettingsVersion: integer(),
    /** When the node applied (or first failed to apply) the version it reports. */
    appliedSettingsAt: timestamp({ withTimezone: true }),
    /** Why the node's last apply failed; null when it succeeded. */
    settingsApplyError: text(),
    /** The MTU of the node's interface as its agent last reported; configs carry it (null: `clientMtu`). */
    appliedClientMtu: integer(),
    /**
     * The alternate ports and resolver choice of the settings version the node last reported
     * applied (decision 133); configs offer and name these (null: the desired ones).
     */
    appliedAlternatePorts: integer().array(),
    appliedNodeResolver: boolean(),
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
    check("vpn_servers_applied_client_mtu_check", sql`${table.appliedClientMtu} between 1280 and 1420`),
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

/**
 * The streaming services staff check from every exit (decision 133): a page the agent fetches
 * through its node's exit, and the answer that means "works from here" — this HTTP status (a
 * redirect is its own status: none is followed), and optionally a text the answer must hold or
 * must not hold. A required service that stops working through a server raises a staff alert and
 * steers new devices elsewhere when another server passes.
 */
export const streamingServices = pgTable(
  "streaming_services",
  {
    id: uuid().primaryKey().defaultRandom(),
    name: text().notNull().unique(),
    url: text().notNull(),
    expectStatus: integer().notNull().default(200),
    bodyContains: text(),
    bodyLacks: text(),
    required: boolean().notNull().default(true),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check("streaming_services_expect_status_check", sql`${table.expectStatus} between 100 and 599`),
  ],
);

export type StreamingService = typeof streamingServices.$inferSelect;

/** Each server's last result for each service, as its agent reported it. */
export const streamingChecks = pgTable(
  "streaming_checks",
  {
    serverId: uuid()
      .notNull()
      .references(() => vpnServers.id, { onDelete: "cascade" }),
    serviceId: uuid()
      .notNull()
      .references(() => streamingServices.id, { onDelete: "cascade" }),
    ok: boolean().notNull(),
    /** The HTTP status answered; null when no answer came (timeout, refused connection). */
    status: integer(),
    /** Why it failed, as the agent found it; null when it worked. */
    reason: text(),
    checkedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.serverId, table.serviceId] }),
    index("streaming_checks_service_idx").on(table.serviceId),
  ],
);
