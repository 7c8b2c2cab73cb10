// `npm run vpn` server commands through the admin API: drain, disable, enable, set-endpoint, remove.
import { PGlite } from "@electric-sql/pglite";
import { eq, ne, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGLITE_EXTENSIONS, queryRows, wrapPglite } from "#server/db/client.ts";
import { listMigrations } from "#server/db/migrate.ts";
import { vpnServers } from "#server/db/schema/index.ts";
import { NoVpnServerAvailable, revokeDevice } from "#server/domain/vpn/devices.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { rotateNodeToken } from "#server/domain/vpn/servers.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { adminCommand } from "../../support/vpn-admin.ts";
import {
  addTestSubscription,
  addTestVpnServer,
  desiredPeerKeys,
  deviceRow,
  issueTestDevice,
} from "../../support/vpn.ts";

describe.each(databaseKinds)("VPN server commands on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  const serverRow = async (id: string) =>
    (await app.services.db.select().from(vpnServers).where(eq(vpnServers.id, id)))[0];
  const startCheckout = () =>
    app.request("/api/create-checkout", { json: { planId: "unlock", customerEmail: "buyer@example.com" } });
  const newDevice = async () =>
    issueTestDevice(app.services, await addTestSubscription(app.services.db, { deviceLimit: 1 }));

  it("a draining server takes no new devices and, as the only one, stops checkout with 503; enabled, it takes them again", async () => {
    // Once a real server exists the demo's development server is never chosen: this one is the only one.
    const only = await addTestVpnServer(app.services.db, { name: "ng-only", octet: 80 });
    expect((await startCheckout()).status).toBe(200);

    const drained = await adminCommand(app, { command: "drain-server", server: "ng-only" });
    expect(drained.status).toBe(200);
    expect(await drained.json()).toMatchObject({
      server: { id: only.id, name: "ng-only", status: "draining" },
    });
    const refused = await startCheckout();
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: "Service unavailable" });
    await expect(newDevice()).rejects.toBeInstanceOf(NoVpnServerAvailable);

    // By id as well as by name.
    const enabled = await adminCommand(app, { command: "enable-server", server: only.id });
    expect(enabled.status).toBe(200);
    expect(await enabled.json()).toMatchObject({ server: { name: "ng-only", status: "active" } });
    expect((await startCheckout()).status).toBe(200);
    expect((await newDevice()).server.id).toBe(only.id);
    // The status it already has is refused, and nothing changes.
    const again = await adminCommand(app, { command: "enable-server", server: "ng-only" });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ message: "VPN server ng-only is already active." });
  });

  it("passes over a draining or disabled server even when it is the least loaded", async () => {
    const empty = await addTestVpnServer(app.services.db, { name: "ng-empty", octet: 81 });
    await adminCommand(app, { command: "drain-server", server: "ng-empty" });
    for (let index = 0; index < 2; index++) expect((await newDevice()).server.id).not.toBe(empty.id);
    expect(await serverRow(empty.id)).toMatchObject({ status: "draining", liveDevices: 0 });
    await adminCommand(app, { command: "disable-server", server: "ng-empty" });
    expect((await newDevice()).server.id).not.toBe(empty.id);
    expect(await serverRow(empty.id)).toMatchObject({ status: "disabled", liveDevices: 0 });
  });

  it("set-endpoint changes the Endpoint of configs rendered afterwards and tells the node a new port", async () => {
    const server = await addTestVpnServer(app.services.db, { name: "ng-moving", octet: 82 });
    await app.services.db
      .update(vpnServers)
      .set({ status: "draining" })
      .where(eq(vpnServers.name, "ng-only"));
    const issued = await newDevice();
    expect(issued.server.id).toBe(server.id);
    const { nodeToken } = (await rotateNodeToken(app.services.db, "ng-moving"))!;
    const peers = (query = "") =>
      app.request(`/api/nodes/peers${query}`, { headers: { authorization: `Bearer ${nodeToken}` } });
    const before = (await (await peers()).json()) as { version: string; server: { listenPort: number } };
    expect(before.server.listenPort).toBe(51820);

    const moved = await adminCommand(app, {
      command: "set-endpoint",
      server: server.id,
      endpoint: "[2001:db8::7]:51900",
    });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ server: { endpoint: "[2001:db8::7]:51900" } });
    const config = await (await app.request(`/api/configs/${issued.downloadToken}`)).text();
    expect(config).toContain("Endpoint = [2001:db8::7]:51900\n");
    const after = await peers(`?since=${before.version}`);
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ server: { listenPort: 51900 } });

    for (const endpoint of [
      "2001:db8::7:51820",
      "vpn.example.com",
      "vpn.example.com:0",
      "vpn.example.com:70000",
      "300.1.1.1:51820",
      "[not-ipv6]:51820",
      "bad host:51820",
    ]) {
      const bad = await adminCommand(app, { command: "set-endpoint", server: "ng-moving", endpoint });
      expect(bad.status, endpoint).toBe(400);
      expect(await bad.json()).toMatchObject({
        error: "Invalid request",
        message: expect.stringMatching(/host:port/),
      });
    }
    expect((await serverRow(server.id))!.endpoint).toBe("[2001:db8::7]:51900");
    await adminCommand(app, {
      command: "set-endpoint",
      server: "ng-moving",
      endpoint: "vpn-2.example.com:51900",
    });
    expect((await serverRow(server.id))!.endpoint).toBe("vpn-2.example.com:51900");
  });

  it("remove-server refuses while the server holds live devices, says how many and changes nothing; removes it once none is left", async () => {
    const server = await addTestVpnServer(app.services.db, { name: "ng-leaving", octet: 83 });
    await app.services.db
      .update(vpnServers)
      .set({ status: "draining" })
      .where(eq(vpnServers.name, "ng-moving"));
    const first = await newDevice();
    const second = await newDevice();
    expect([first.server.id, second.server.id]).toEqual([server.id, server.id]);
    const { nodeToken } = (await rotateNodeToken(app.services.db, "ng-leaving"))!;

    const refused = await adminCommand(app, { command: "remove-server", server: "ng-leaving" });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: "Conflict",
      message: expect.stringContaining("ng-leaving still holds 2 live devices"),
    });
    expect(await serverRow(server.id)).toMatchObject({ name: "ng-leaving", liveDevices: 2 });
    expect(await deviceRow(app.services.db, first.device.id)).toMatchObject({
      vpnServerId: server.id,
      revokedAt: null,
    });

    await revokeDevice(app.services.db, first.device.id);
    const stillOne = await adminCommand(app, { command: "remove-server", server: server.id });
    expect(await stillOne.json()).toMatchObject({
      message: expect.stringContaining("still holds 1 live device;"),
    });

    await revokeDevice(app.services.db, second.device.id);
    const removed = await adminCommand(app, { command: "remove-server", server: "ng-leaving" });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ removed: "ng-leaving" });
    expect(await serverRow(server.id)).toBeUndefined();
    // The revoked devices stay, their slots used, without a server; their links answer 410.
    expect(await deviceRow(app.services.db, first.device.id)).toMatchObject({ vpnServerId: null });
    expect((await app.request(`/api/configs/${second.downloadToken}`)).status).toBe(410);
    const peers = await app.request("/api/nodes/peers", {
      headers: { authorization: `Bearer ${nodeToken}` },
    });
    expect(peers.status).toBe(401);
  });

  it("a live device cannot lose its server, whoever deletes it", async () => {
    await addTestVpnServer(app.services.db, { name: "ng-kept", octet: 84 });
    const issued = await newDevice();
    await expect(
      app.services.db.delete(vpnServers).where(eq(vpnServers.id, issued.server.id)),
    ).rejects.toThrow();
    expect(await deviceRow(app.services.db, issued.device.id)).toMatchObject({
      vpnServerId: issued.server.id,
    });
  });

  it("answers bad commands with a 4xx { error, message }", async () => {
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ command: "disable-server", server: "ng-nowhere" }, 404],
      [{ command: "remove-server", server: "00000000-0000-4000-8000-000000000000" }, 404],
      [{ command: "enable-server" }, 400],
      [{ command: "set-endpoint", server: "ng-moving" }, 400],
      [{ command: "remove-server", server: 7 }, 400],
      [{ command: "pause-server", server: "ng-moving" }, 400],
      [{ command: "drain-server", server: "ng-moving" }, 409],
    ];
    for (const [command, status] of cases) {
      const response = await adminCommand(app, command);
      expect(response.status, JSON.stringify(command)).toBe(status);
      const body = (await response.json()) as { error: string; message: string };
      expect(body.error.length).toBeGreaterThan(0);
      expect(body.message.length).toBeGreaterThan(0);
    }
    const unauthorized = await app.request("/api/nodes/servers", {
      json: { command: "remove-server", server: "ng-moving" },
    });
    expect(unauthorized.status).toBe(401);
    expect(
      await app.services.db.select().from(vpnServers).where(eq(vpnServers.name, "ng-moving")),
    ).toHaveLength(1);
  });

  it("a disabled server's node is told to drop its peers at once; draining keeps them, enabling restores them", async () => {
    const server = await addTestVpnServer(app.services.db, { name: "ng-switch", octet: 85 });
    await app.services.db.update(vpnServers).set({ status: "draining" }).where(ne(vpnServers.id, server.id));
    const issued = await newDevice();
    expect(issued.server.id).toBe(server.id);
    const { nodeToken } = (await rotateNodeToken(app.services.db, "ng-switch"))!;
    const poll = async (since: string) =>
      app.request(`/api/nodes/peers?since=${since}`, { headers: { authorization: `Bearer ${nodeToken}` } });
    const changes = async (since: string) =>
      (await (await poll(since)).json()) as {
        version: string;
        upserts: Array<{ publicKey: string }>;
        removals: string[];
      };
    const start = (await (
      await app.request("/api/nodes/peers", { headers: { authorization: `Bearer ${nodeToken}` } })
    ).json()) as { version: string };
    const key = issued.device.publicKey;

    await adminCommand(app, { command: "drain-server", server: "ng-switch" });
    expect((await poll(start.version)).status).toBe(304);
    expect(await desiredPeerKeys(app.services.db, app.services.sealer, server)).toEqual([key]);

    await adminCommand(app, { command: "disable-server", server: "ng-switch" });
    const dropped = await changes(start.version);
    expect(dropped).toMatchObject({ upserts: [], removals: [key] });
    expect(await desiredPeerKeys(app.services.db, app.services.sealer, server)).toEqual([]);

    await adminCommand(app, { command: "enable-server", server: "ng-switch" });
    const restored = await changes(dropped.version);
    expect(restored.upserts.map((peer) => peer.publicKey)).toEqual([key]);
    expect(restored.removals).toEqual([]);
  });
});

describe("the server-status migration (0021)", () => {
  it("turns active = false into draining, keeps the least-loaded index on active servers only", async () => {
    const client = new PGlite({ extensions: PGLITE_EXTENSIONS });
    const { db } = wrapPglite(client);
    try {
      const migrations = listMigrations();
      const split = migrations.findIndex((migration) => migration.name.endsWith("_vpn_server_status"));
      expect(split).toBeGreaterThan(0);
      const apply = async (list: typeof migrations) => {
        for (const migration of list)
          for (const statement of migration.statements) await db.execute(sql.raw(statement));
      };
      await apply(migrations.slice(0, split));
      for (const [name, active] of [
        ["ng-on", true],
        ["ng-off", false],
      ] as const)
        await db.execute(
          sql`insert into vpn_servers (name, endpoint, public_key, ipv4_cidr, ipv6_cidr, dns, node_token_hash, active)
              values (${name}, '203.0.113.9:51820', ${generateKeyPair().publicKey}, '10.60.0.0/16', 'fd60::/64',
                '1.1.1.1', ${`hash-${name}`}, ${active})`,
        );
      await apply(migrations.slice(split));
      expect(await queryRows(db, sql`select name, status from vpn_servers order by name`)).toEqual([
        { name: "ng-off", status: "draining" },
        { name: "ng-on", status: "active" },
      ]);
      const [index] = await queryRows<{ indexdef: string }>(
        db,
        sql`select indexdef from pg_indexes where indexname = 'vpn_servers_least_loaded_idx'`,
      );
      expect(index!.indexdef).toMatch(/WHERE \(\(status = 'active'::text\) AND \(public_key IS NOT NULL\)\)/);
      await expect(db.execute(sql`update vpn_servers set status = 'paused'`)).rejects.toThrow();
    } finally {
      await client.close();
    }
  });
});
