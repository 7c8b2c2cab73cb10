import { PGlite } from "@electric-sql/pglite";
import { eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import {
  PGLITE_EXTENSIONS,
  queryRows,
  wrapPglite,
  type DatabaseHandle,
  type Executor,
} from "#server/db/client.ts";
import { listMigrations } from "#server/db/migrate.ts";
import { devices, subscriptions, vpnServers, type Subscription } from "#server/db/schema/index.ts";
import {
  issueDevice,
  NoVpnServerAvailable,
  revokeDevice,
  revokeSubscriptionDevices,
} from "#server/domain/vpn/devices.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { createSealer } from "#server/secrets.ts";
import { createTestDatabase, databaseKinds, ignoreTerminatedConnections } from "../../support/database.ts";
import { addTestVpnServer, bareVpnServices } from "../../support/vpn.ts";

// Decision 044: each server's allocation state (live_devices, next_address_index and the
// vpn_free_addresses list) must always describe its live devices exactly.

const services = bareVpnServices(createSealer(Buffer.alloc(32, 9).toString("base64")));

async function newSubscription(executor: Executor, deviceLimit = 1) {
  const [subscription] = await executor
    .insert(subscriptions)
    .values({
      planId: "pro-monthly",
      planType: "pro_monthly",
      deviceLimit,
      expiresAt: new Date(Date.now() + 30 * 86_400_000),
      checkoutSessionId: `cs_test_${crypto.randomUUID()}`,
    })
    .returning();
  return subscription!;
}

/** Every way the stored state can disagree with the live devices, per server (empty when consistent). */
async function allocationMismatches(executor: Executor) {
  return queryRows<{ name: string; problem: string }>(
    executor,
    sql`select s.name, 'live_devices ' || s.live_devices || ' but ' || count(d.id) || ' live' as problem
          from vpn_servers s left join devices d on d.vpn_server_id = s.id and d.revoked_at is null
          group by s.id having s.live_devices <> count(d.id)
        union all
        select s.name, 'live offset ' || d.address_index || ' not below the mark ' || s.next_address_index
          from devices d join vpn_servers s on s.id = d.vpn_server_id
          where d.revoked_at is null and d.address_index >= s.next_address_index
        union all
        select s.name, 'offset ' || g || ' neither live nor free'
          from vpn_servers s, generate_series(2, s.next_address_index - 1) g
          where not exists (select 1 from devices d where d.vpn_server_id = s.id and d.revoked_at is null and d.address_index = g)
            and not exists (select 1 from vpn_free_addresses f where f.server_id = s.id and f.address_index = g)
        union all
        select s.name, 'offset ' || f.address_index || ' both live and free'
          from vpn_free_addresses f join vpn_servers s on s.id = f.server_id
          where f.address_index >= s.next_address_index
             or exists (select 1 from devices d where d.vpn_server_id = f.server_id and d.revoked_at is null and d.address_index = f.address_index)`,
  );
}

describe.each(databaseKinds)("VPN address allocation state on %s", (kind) => {
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    ignoreTerminatedConnections(handle);
    await handle?.close();
    handle = undefined;
  });

  async function issue(db: DatabaseHandle, subscription?: Subscription) {
    const owner = subscription ?? (await newSubscription(db.db));
    return db.db.transaction((tx) => issueDevice(tx, services, owner));
  }

  it("reuses released offsets lowest first, then continues at the high-water mark", async () => {
    handle = await createTestDatabase(kind);
    await addTestVpnServer(handle.db);
    const issued = [];
    for (let index = 0; index < 5; index++) issued.push(await issue(handle));
    expect(issued.map((entry) => entry.device.addressIndex)).toEqual([2, 3, 4, 5, 6]);
    await revokeDevice(handle.db, issued[3]!.device.id); // offset 5
    await revokeDevice(handle.db, issued[1]!.device.id); // offset 3
    const reused = [await issue(handle), await issue(handle), await issue(handle)];
    expect(reused.map((entry) => entry.device.addressIndex)).toEqual([3, 5, 7]);
    expect(reused[0]!.device.ipv4).toBe(issued[1]!.device.ipv4);
    expect(reused[0]!.device.ipv6).toBe(issued[1]!.device.ipv6);
    expect(await allocationMismatches(handle.db)).toEqual([]);
  });

  it("issues no more devices than a server's pool holds, and nothing once it is full", async () => {
    handle = await createTestDatabase(kind);
    const db = handle;
    // A /29 holds host offsets 2..6 for devices: five.
    await addTestVpnServer(db.db, { name: "ng-tiny-1", octet: 70, ipv4Prefix: 29 });
    const placed = [];
    for (let index = 0; index < 5; index++) placed.push(await issue(db));
    expect(placed.map((entry) => entry.device.addressIndex)).toEqual([2, 3, 4, 5, 6]);
    expect(placed.map((entry) => entry.device.ipv4)).toEqual([
      "10.70.0.2",
      "10.70.0.3",
      "10.70.0.4",
      "10.70.0.5",
      "10.70.0.6",
    ]);
    const owner = await newSubscription(db.db);
    await expect(issue(db, owner)).rejects.toBeInstanceOf(NoVpnServerAvailable);
    expect(await db.db.select().from(devices).where(eq(devices.subscriptionId, owner.id))).toEqual([]);
    expect(await allocationMismatches(db.db)).toEqual([]);
  });

  it("passes over a full server even when it has the fewest devices", async () => {
    handle = await createTestDatabase(kind);
    const db = handle;
    const roomy = await addTestVpnServer(db.db);
    for (let index = 0; index < 6; index++) await issue(db); // six on the roomy server
    const tiny = await addTestVpnServer(db.db, { name: "ng-tiny-2", octet: 72, ipv4Prefix: 29 });
    const placed = [];
    for (let index = 0; index < 7; index++) placed.push(await issue(db));
    // The tiny server (five offsets) is the least loaded until it is full; then the roomy one.
    expect(placed.map((entry) => entry.server.name)).toEqual([
      ...Array<string>(5).fill(tiny.name),
      roomy.name,
      roomy.name,
    ]);
    // A released offset makes it eligible again.
    await revokeDevice(db.db, placed[2]!.device.id);
    expect((await issue(db)).device).toMatchObject({ vpnServerId: tiny.id, ipv4: "10.72.0.4" });
    expect(await allocationMismatches(db.db)).toEqual([]);
  });

  it("issues nothing, and writes nothing, when no server is available", async () => {
    handle = await createTestDatabase(kind);
    const db = handle;
    const owner = await newSubscription(db.db);
    await expect(issue(db, owner)).rejects.toBeInstanceOf(NoVpnServerAvailable);
    expect(await db.db.select().from(devices)).toEqual([]);
    expect(services.queued).toEqual([]);
  });

  it("keeps the counters and free list equal to the live devices under concurrent issue and revoke", async () => {
    handle = await createTestDatabase(kind);
    const db = handle;
    await addTestVpnServer(db.db);
    await addTestVpnServer(db.db, { name: "ng-abuja-1", octet: 67 });
    const owners = await Promise.all(Array.from({ length: 60 }, () => newSubscription(db.db, 2)));
    const first = await Promise.all(owners.map((owner) => issue(db, owner)));
    expect(await allocationMismatches(db.db)).toEqual([]);
    // Revoke every other device (one by one and per subscription) while new ones are issued.
    // (per subscription only where no second device is being issued for it).
    const revokes = first
      .map((entry, index) => ({ entry, index }))
      .filter(({ index }) => index % 2 === 0)
      .map(({ entry, index }) =>
        index < 40
          ? revokeDevice(db.db, entry.device.id)
          : revokeSubscriptionDevices(db.db, [entry.device.subscriptionId]),
      );
    const fresh = owners.slice(0, 40).map((owner) => issue(db, owner));
    const more = Array.from({ length: 20 }, () => issue(db));
    await Promise.all([...revokes, ...fresh, ...more]);
    expect(await allocationMismatches(db.db)).toEqual([]);
    const [live] = await queryRows<{ total: number; sum: number }>(
      db.db,
      sql`select (select count(*) from devices where revoked_at is null)::int as total,
                 (select sum(live_devices) from vpn_servers)::int as sum`,
    );
    expect(live).toEqual({ total: 60 - 30 + 40 + 20, sum: 60 - 30 + 40 + 20 });
    // Deleting a subscription (cascade) releases its live devices too.
    await db.db.delete(subscriptions).where(eq(subscriptions.id, owners[1]!.id));
    expect(await allocationMismatches(db.db)).toEqual([]);
    const duplicates = await queryRows(
      db.db,
      sql`select vpn_server_id, address_index from devices where revoked_at is null
          group by vpn_server_id, address_index having count(*) > 1`,
    );
    expect(duplicates).toEqual([]);
  }, 180_000);

  it("chooses the server with the fewest live devices by its counter", async () => {
    handle = await createTestDatabase(kind);
    const lagos = await addTestVpnServer(handle.db);
    const one = await issue(handle);
    const abuja = await addTestVpnServer(handle.db, { name: "ng-abuja-1", octet: 67 });
    expect((await issue(handle)).server.id).toBe(abuja.id);
    await revokeDevice(handle.db, one.device.id); // lagos: 0 live, abuja: 1 live
    expect((await issue(handle)).server.id).toBe(lagos.id);
    const counts = await handle.db
      .select({ name: vpnServers.name, liveDevices: vpnServers.liveDevices })
      .from(vpnServers)
      .orderBy(vpnServers.name);
    expect(counts).toEqual([
      { name: "ng-abuja-1", liveDevices: 1 },
      { name: "ng-lagos-1", liveDevices: 1 },
    ]);
  });
});

describe("the allocation-state migration", () => {
  it("backfills counters, high-water marks and free lists from existing devices", async () => {
    const client = new PGlite({ extensions: PGLITE_EXTENSIONS });
    const { db } = wrapPglite(client);
    try {
      const migrations = listMigrations();
      const split = migrations.findIndex((migration) => migration.name.endsWith("_vpn_allocation_state"));
      expect(split).toBeGreaterThan(0);
      const apply = async (list: typeof migrations) => {
        for (const migration of list)
          for (const statement of migration.statements) await db.execute(sql.raw(statement));
      };
      await apply(migrations.slice(0, split));
      const [server] = await queryRows<{ id: string }>(
        db,
        sql`insert into vpn_servers (name, endpoint, public_key, ipv4_cidr, ipv6_cidr, dns, node_token_hash)
            values ('ng-old-1', '203.0.113.9:51820', ${generateKeyPair().publicKey}, '10.60.0.0/16', 'fd60::/64', '1.1.1.1', 'hash')
            returning id`,
      );
      await queryRows<{ id: string }>(
        db,
        sql`insert into vpn_servers (name, endpoint, public_key, ipv4_cidr, ipv6_cidr, dns, node_token_hash)
            values ('ng-empty-1', '203.0.113.8:51820', ${generateKeyPair().publicKey}, '10.61.0.0/16', 'fd61::/64', '1.1.1.1', 'hash2')`,
      );
      // Written as SQL: the schema's subscriptions have columns later migrations add (has_slot_one, 0081).
      const [subscription] = await queryRows<{ id: string }>(
        db,
        sql`insert into subscriptions (plan_id, plan_type, device_limit, expires_at, checkout_session_id)
            values ('pro-monthly', 'pro_monthly', 9, now() + interval '30 days', ${`cs_test_${crypto.randomUUID()}`})
            returning id`,
      );
      // Live offsets 2, 4 and 7; offset 5 was revoked; offset 9 was revoked above the last live one.
      const rows: Array<[number, number, boolean]> = [
        [1, 2, false],
        [2, 4, false],
        [3, 5, true],
        [4, 7, false],
        [5, 9, true],
      ];
      for (const [slot, offset, revoked] of rows) {
        await db.execute(
          sql`insert into devices (subscription_id, slot, vpn_server_id, public_key, private_key_sealed,
                preshared_key_sealed, address_index, ipv4, ipv6, download_token_hash, download_token_sealed, revoked_at)
              values (${subscription!.id}, ${slot}, ${server!.id}, ${`key${slot}`}, 'x', 'x', ${offset},
                ${`10.60.0.${offset}`}, ${`fd60::${offset}`}, ${`token${slot}`}, 'x', ${revoked ? sql`now()` : sql`null`})`,
        );
      }
      await apply(migrations.slice(split));
      const state = await queryRows<{ name: string; live: number; next: number; free: number[] }>(
        db,
        sql`select name, live_devices as live, next_address_index as next,
              array(select address_index from vpn_free_addresses f where f.server_id = s.id order by 1) as free
            from vpn_servers s order by name`,
      );
      expect(state).toEqual([
        { name: "ng-empty-1", live: 0, next: 2, free: [] },
        { name: "ng-old-1", live: 3, next: 8, free: [3, 5, 6] },
      ]);
      expect(await allocationMismatches(db)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
