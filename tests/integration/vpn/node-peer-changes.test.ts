// The node change feed at the database: the triggers of migration 0008 log what any write to
// `devices` or `subscriptions` changed, whoever makes it, and `peerChangesSince` reads it.
import crypto from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client.ts";
import { devices, subscriptions, vpnPeerChanges, type VpnServer } from "#server/db/schema/index.ts";
import { addressesAt } from "#server/domain/vpn/addresses.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import {
  currentPeerVersion,
  peerChangesSince,
  prunePeerChanges,
  startPeerChangeFeed,
  type RunningPeerChangeFeed,
} from "#server/domain/vpn/peer-changes.ts";
import { createLogger } from "#server/logger.ts";
import { createTestDatabase, databaseKinds, ignoreTerminatedConnections } from "../../support/database.ts";
import { addTestVpnServer } from "../../support/vpn.ts";

describe.each(databaseKinds)("the VPN peer change log on %s", (kind) => {
  let database: DatabaseHandle;
  let feed: RunningPeerChangeFeed;
  let lagos: VpnServer;
  let abuja: VpnServer;
  let nextIndex = 2;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    ignoreTerminatedConnections(database);
    lagos = await addTestVpnServer(database.db, { name: "ng-lagos-1", octet: 66 });
    abuja = await addTestVpnServer(database.db, { name: "ng-abuja-1", octet: 67 });
    feed = await startPeerChangeFeed({ db: database.db, kind, logger: createLogger({ level: "silent" }) });
  });
  afterAll(async () => {
    await feed?.close();
    await database?.close();
  });

  async function newSubscription() {
    const [subscription] = await database.db
      .insert(subscriptions)
      .values({
        planId: "pro-monthly",
        planType: "pro_monthly",
        deviceLimit: 3,
        expiresAt: new Date(Date.now() + 30 * 86_400_000),
        checkoutSessionId: `cs_test_changes_${crypto.randomUUID()}`,
      })
      .returning();
    return subscription!;
  }

  /** Device rows written directly: the log must not depend on which code writes them. */
  function deviceRow(subscriptionId: string, server: VpnServer, slot: number) {
    const index = nextIndex++;
    return {
      subscriptionId,
      slot,
      vpnServerId: server.id,
      publicKey: generateKeyPair().publicKey,
      privateKeySealed: "sealed",
      presharedKeySealed: "sealed",
      addressIndex: index,
      ...addressesAt(server.ipv4Cidr, server.ipv6Cidr, index),
      downloadTokenHash: crypto.randomUUID(),
      downloadTokenSealed: "sealed",
    };
  }

  /** The keys logged for `server` by `write`, and the versions it went through. */
  async function logged(server: VpnServer, write: () => Promise<unknown>) {
    const before = await currentPeerVersion(database.db, server.id);
    await write();
    const after = await currentPeerVersion(database.db, server.id);
    const changes = await peerChangesSince(database.db, server.id, String(before));
    const keys = changes.state === "changed" ? [...changes.publicKeys].sort() : [];
    return { keys, bumps: after - before };
  }

  it("logs issued devices, one version per server for a multi-row insert", async () => {
    const subscription = await newSubscription();
    const rows = [deviceRow(subscription.id, lagos, 1), deviceRow(subscription.id, lagos, 2)];
    const result = await logged(lagos, () => database.db.insert(devices).values(rows));
    expect(result).toEqual({ keys: rows.map((row) => row.publicKey).sort(), bumps: 1 });
  });

  it("logs a revocation, a re-key, a move to another server and a deletion, on the right servers", async () => {
    const subscription = await newSubscription();
    const [device] = await database.db
      .insert(devices)
      .values(deviceRow(subscription.id, lagos, 1))
      .returning();
    const oldKey = device!.publicKey;
    const newKey = generateKeyPair().publicKey;
    const rekey = await logged(lagos, () =>
      database.db
        .update(devices)
        .set({ publicKey: newKey, presharedKeySealed: "resealed" })
        .where(eq(devices.id, device!.id)),
    );
    expect(rekey.keys).toEqual([oldKey, newKey].sort());

    const movedTo = addressesAt(abuja.ipv4Cidr, abuja.ipv6Cidr, 40);
    const move = () =>
      database.db
        .update(devices)
        .set({ vpnServerId: abuja.id, addressIndex: 40, ...movedTo })
        .where(eq(devices.id, device!.id));
    const abujaBefore = await currentPeerVersion(database.db, abuja.id);
    expect((await logged(lagos, move)).keys).toEqual([newKey]);
    expect(await peerChangesSince(database.db, abuja.id, String(abujaBefore))).toMatchObject({
      state: "changed",
      publicKeys: [newKey],
    });

    const revoke = () =>
      database.db.update(devices).set({ revokedAt: new Date() }).where(eq(devices.id, device!.id));
    expect((await logged(abuja, revoke)).keys).toEqual([newKey]);
    // A revoked device's deletion changes no peer.
    const remove = () => database.db.delete(devices).where(eq(devices.id, device!.id));
    expect(await logged(abuja, remove)).toEqual({ keys: [], bumps: 0 });

    const [live] = await database.db
      .insert(devices)
      .values(deviceRow(subscription.id, lagos, 2))
      .returning();
    const deleteLive = () => database.db.delete(devices).where(eq(devices.id, live!.id));
    expect((await logged(lagos, deleteLive)).keys).toEqual([live!.publicKey]);
  });

  it("logs a subscription's live devices when its status or expiry changes, and nothing for other writes", async () => {
    const subscription = await newSubscription();
    const rows = [deviceRow(subscription.id, lagos, 1), deviceRow(subscription.id, lagos, 2)];
    const [revoked] = await database.db
      .insert(devices)
      .values([...rows, { ...deviceRow(subscription.id, lagos, 3), revokedAt: new Date() }])
      .returning()
      .then((inserted) => inserted.filter((row) => row.revokedAt !== null));
    const where = eq(subscriptions.id, subscription.id);
    const pastDue = await logged(lagos, () =>
      database.db.update(subscriptions).set({ status: "past_due" }).where(where),
    );
    expect(pastDue.keys).toEqual(rows.map((row) => row.publicKey).sort());
    expect(pastDue.keys).not.toContain(revoked!.publicKey);
    const renewed = await logged(lagos, () =>
      database.db
        .update(subscriptions)
        .set({ expiresAt: new Date(Date.now() + 60 * 86_400_000) })
        .where(where),
    );
    expect(renewed.keys).toHaveLength(2);

    const quiet = await logged(lagos, async () => {
      await database.db
        .update(subscriptions)
        .set({ updatedAt: new Date(), cancelAtPeriodEnd: true })
        .where(where);
      await database.db
        .update(devices)
        .set({ lastHandshakeAt: new Date(), activatedAt: new Date(), name: "phone" })
        .where(eq(devices.subscriptionId, subscription.id));
    });
    expect(quiet).toEqual({ keys: [], bumps: 0 });
  });

  it("answers a current version as current, and an unknown or future one as unknown", async () => {
    const current = await currentPeerVersion(database.db, lagos.id);
    expect(await peerChangesSince(database.db, lagos.id, String(current))).toEqual({
      state: "current",
      version: current,
    });
    for (const since of [String(current + 1), "abc", "-1", "1e3", "99999999999"])
      expect(await peerChangesSince(database.db, lagos.id, since)).toEqual({ state: "unknown" });
  });

  it("prunes whole old versions: a node behind them gets the full set, one after them only the change", async () => {
    const subscription = await newSubscription();
    await database.db.insert(devices).values(deviceRow(subscription.id, lagos, 1));
    const beforeLast = await currentPeerVersion(database.db, lagos.id);
    const last = deviceRow(subscription.id, lagos, 2);
    await database.db.insert(devices).values(last);
    await database.db.execute(
      sql`update ${vpnPeerChanges} set changed_at = now() - interval '2 hours' where version <= ${beforeLast}`,
    );
    expect(await prunePeerChanges(database.db, new Date(Date.now() - 3_600_000))).toBeGreaterThan(0);
    expect(await peerChangesSince(database.db, lagos.id, String(beforeLast - 1))).toEqual({
      state: "unknown",
    });
    expect(await peerChangesSince(database.db, lagos.id, String(beforeLast))).toMatchObject({
      state: "changed",
      publicKeys: [last.publicKey],
    });
  });

  it("wakes a watch on the server a committed write touched, and not on another server", async () => {
    const onLagos = feed.feed.watch(lagos.id);
    const onAbuja = feed.feed.watch(abuja.id);
    try {
      const subscription = await newSubscription();
      await database.db.insert(devices).values(deviceRow(subscription.id, lagos, 1));
      expect(await onLagos.changed(10_000)).toBe(true);
      expect(await onAbuja.changed(0)).toBe(false);
      // A rolled-back write notifies nobody.
      await database.db
        .transaction(async (tx) => {
          await tx.insert(devices).values(deviceRow(subscription.id, lagos, 2));
          tx.rollback();
        })
        .catch(() => undefined);
      expect(await onLagos.changed(0)).toBe(false);
    } finally {
      onLagos.stop();
      onAbuja.stop();
    }
  });
});
