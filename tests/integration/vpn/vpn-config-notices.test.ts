// Out-of-date configs (issue 22, decision 090): once a server changes what its configs say, the
// account page says a re-download is advised for each device whose config was handed out before,
// and its owner gets one e-mail per change (after the change settled) with fresh links.
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGLITE_EXTENSIONS, queryRows, wrapPglite } from "#server/db/client.ts";
import { listMigrations } from "#server/db/migrate.ts";
import { listAccount } from "#server/domain/account/account.ts";
import { CONFIG_NOTICE_SETTLE_MS, queueConfigUpdateNotices } from "#server/domain/vpn/config-notices.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { rotateNodeToken } from "#server/domain/vpn/servers.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { adminCommand } from "../../support/vpn-admin.ts";
import { addOnlyActiveServer, addTestSubscription, issueTestDevice } from "../../support/vpn.ts";
import { queuedEmails } from "../../support/staff.ts";

const MINUTE = 60_000;

describe.each(databaseKinds)("out-of-date configs on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  /** The only server taking devices, with `count` devices of one subscription of `email`. */
  async function serverWithDevices(name: string, octet: number, email: string, count = 1) {
    const server = await addOnlyActiveServer(app.services.db, { name, octet });
    const subscription = await addTestSubscription(app.services.db, { customerEmail: email });
    const issued = [];
    for (let index = 0; index < count; index += 1)
      issued.push(await issueTestDevice(app.services, subscription));
    return { server, devices: issued };
  }
  const outdatedOf = async (email: string) =>
    (await listAccount(app.services, { id: `customer-${email}`, email })).flatMap((subscription) =>
      subscription.devices.map((device) => [device.name, device.configOutdated] as const),
    );
  const updateMails = async (email: string) =>
    (await queuedEmails(app, email)).filter((queued) => queued.kind === "config-update");
  /** The server's node reporting its current settings version applied (its MTU 1280). */
  const reportApplied = async (server: { id: string; name: string; publicKey: string | null }) => {
    const { nodeToken } = (await rotateNodeToken(app.services.db, server.name))!;
    const [row] = await queryRows<{ settingsVersion: number }>(
      app.services.db,
      sql`select settings_version as "settingsVersion" from vpn_servers where id = ${server.id}`,
    );
    const reported = await app.request("/api/nodes/status", {
      json: { publicKey: server.publicKey, settings: { version: row!.settingsVersion, mtu: 1280 } },
      headers: { authorization: `Bearer ${nodeToken}` },
    });
    expect(reported.status).toBe(200);
  };
  /** A run of the job once every change so far has settled. */
  const runNotices = () =>
    queueConfigUpdateNotices(app.services, new Date(Date.now() + CONFIG_NOTICE_SETTLE_MS + MINUTE));

  it("advises a re-download on the account page once the node applied set-mtu, until the device's config is downloaded again", async () => {
    const email = "mtu-owner@example.com";
    const { server, devices: issued } = await serverWithDevices("ng-notice-mtu", 50, email, 2);
    const { nodeToken } = (await rotateNodeToken(app.services.db, server.name))!;
    expect(await outdatedOf(email)).toEqual([
      ["Device 1", false],
      ["Device 2", false],
    ]);
    const changed = await adminCommand(app, { command: "set-mtu", server: server.name, mtu: 1380 });
    expect(changed.status).toBe(200);
    // Until the node reports the new MTU applied, configs keep the old one: nothing is out of date.
    expect(await outdatedOf(email)).toEqual([
      ["Device 1", false],
      ["Device 2", false],
    ]);
    const [row] = await queryRows<{ settingsVersion: number }>(
      app.services.db,
      sql`select settings_version as "settingsVersion" from vpn_servers where id = ${server.id}`,
    );
    const reported = await app.request("/api/nodes/status", {
      json: { publicKey: server.publicKey, settings: { version: row!.settingsVersion, mtu: 1380 } },
      headers: { authorization: `Bearer ${nodeToken}` },
    });
    expect(reported.status).toBe(200);
    expect(await outdatedOf(email)).toEqual([
      ["Device 1", true],
      ["Device 2", true],
    ]);
    // The alternate-port variant is the current config too.
    expect((await app.request(`/api/configs/${issued[0]!.downloadToken}?port=443`)).status).toBe(200);
    expect(await outdatedOf(email)).toEqual([
      ["Device 1", false],
      ["Device 2", true],
    ]);
  });

  it("e-mails each owner once per change, after it settled, with each out-of-date device's links", async () => {
    const email = "dns-owner@example.com";
    const { server, devices: issued } = await serverWithDevices("ng-notice-dns", 51, email, 2);
    const bystander = "bystander@example.com";
    await serverWithDevices("ng-notice-other", 52, bystander);
    await app.request(`/api/configs/${issued[1]!.downloadToken}`);
    expect(
      (await adminCommand(app, { command: "set-dns", server: server.name, dns: "9.9.9.9" })).status,
    ).toBe(200);
    // Configs name the node's resolver until the node reports it switched (decision 133).
    expect(await outdatedOf(email)).toEqual([
      ["Device 1", false],
      ["Device 2", false],
    ]);
    await reportApplied(server);

    // Not while the operator may still be changing things.
    expect(await queueConfigUpdateNotices(app.services, new Date(Date.now() + MINUTE))).toEqual({
      configNotices: 0,
    });
    // Device 2 is downloaded again after the change: only device 1 is out of date.
    await app.request(`/api/configs/${issued[1]!.downloadToken}`);
    // (The earlier test's server has its own owner to tell.)
    expect((await runNotices()).configNotices).toBeGreaterThanOrEqual(1);
    const [mail, ...more] = await updateMails(email);
    expect(more).toEqual([]);
    expect(mail!.subject).toBe("Download your NaijaLink config again: its server has new settings");
    const link = `http://localhost:3000/api/configs/${issued[0]!.downloadToken}`;
    expect(mail!.text).toContain(`Device 1 (NaijaLink1.conf): ${link}`);
    expect(mail!.text).toContain(`${link}?port=443`);
    expect(mail!.text).not.toContain(issued[1]!.downloadToken);
    expect(await updateMails(bystander)).toEqual([]);

    // Once per change: the next run sends nothing, a new change sends again.
    expect(await runNotices()).toEqual({ configNotices: 0 });
    expect((await adminCommand(app, { command: "set-dns", server: server.name, dns: "node" })).status).toBe(
      200,
    );
    expect(await runNotices()).toEqual({ configNotices: 0 });
    await reportApplied(server);
    expect(await runNotices()).toEqual({ configNotices: 1 });
    const second = await updateMails(email);
    expect(second).toHaveLength(2);
    expect(second[1]!.text).toContain(`Device 2 (NaijaLink2.conf)`);
  });

  it("says nothing for a change that outdates no config: a port added", async () => {
    const email = "port-owner@example.com";
    const { server } = await serverWithDevices("ng-notice-port", 53, email);
    expect(
      (await adminCommand(app, { command: "set-ports", server: server.name, ports: [443, 53] })).status,
    ).toBe(200);
    expect(await outdatedOf(email)).toEqual([["Device 1", false]]);
    await runNotices();
    expect(await updateMails(email)).toEqual([]);
  });

  it("a node that registers a new key outdates the configs carrying the old one", async () => {
    const email = "key-owner@example.com";
    const { server } = await serverWithDevices("ng-notice-key", 54, email);
    const { nodeToken } = (await rotateNodeToken(app.services.db, server.name))!;
    const report = (publicKey: string) =>
      app.request("/api/nodes/status", {
        json: { publicKey },
        headers: { authorization: `Bearer ${nodeToken}` },
      });
    expect((await report(server.publicKey!)).status).toBe(200);
    expect(await outdatedOf(email)).toEqual([["Device 1", false]]);
    expect((await report(generateKeyPair().publicKey)).status).toBe(200);
    expect(await outdatedOf(email)).toEqual([["Device 1", true]]);
  });

  it("marks configs handed out before the upgrade out of date, keeps existing servers on their resolver", async () => {
    const client = new PGlite({ extensions: PGLITE_EXTENSIONS });
    const { db } = wrapPglite(client);
    try {
      const migrations = listMigrations();
      const split = migrations.findIndex((migration) => migration.name.endsWith("_vpn_client_settings"));
      expect(split).toBeGreaterThan(0);
      const apply = async (list: typeof migrations) => {
        for (const migration of list)
          for (const statement of migration.statements) await db.execute(sql.raw(statement));
      };
      await apply(migrations.slice(0, split));
      for (const [name, port] of [
        ["ng-old", 51820],
        ["ng-old-443", 443],
      ] as const)
        await db.execute(
          sql`insert into vpn_servers (name, endpoint, public_key, ipv4_cidr, ipv6_cidr, dns, node_token_hash)
              values (${name}, ${`203.0.113.9:${port}`}, ${generateKeyPair().publicKey}, '10.60.0.0/16',
                'fd60::/64', '1.1.1.1', ${`hash-${name}`})`,
        );
      const [old] = await queryRows<{ id: string }>(
        db,
        sql`select id from vpn_servers where name = 'ng-old'`,
      );
      await db.execute(
        sql`insert into subscriptions (plan_id, plan_type, device_limit, expires_at, checkout_session_id)
            values ('unlock', 'unlock', 1, now() + interval '7 days', 'cs_before_upgrade')`,
      );
      await db.execute(
        sql`insert into devices (subscription_id, slot, vpn_server_id, public_key, private_key_sealed,
              preshared_key_sealed, address_index, ipv4, ipv6, download_token_hash, download_token_sealed, created_at)
            select id, 1, ${old!.id}, ${generateKeyPair().publicKey}, 'sealed', 'sealed', 2, '10.60.0.2',
              'fd60::2', 'token-hash', 'sealed', now() - interval '1 day'
            from subscriptions where checkout_session_id = 'cs_before_upgrade'`,
      );
      await apply(migrations.slice(split));
      // Its config (no MTU line) was handed out before the change the upgrade is.
      const [outdated] = await queryRows<{ outdated: boolean }>(
        db,
        sql`select d.config_issued_at = d.created_at and d.config_issued_at < s.client_config_changed_at as outdated
            from devices d join vpn_servers s on s.id = d.vpn_server_id`,
      );
      expect(outdated!.outdated).toBe(true);
      expect(
        await queryRows(
          db,
          sql`select name, client_mtu, alternate_ports, node_resolver from vpn_servers order by name`,
        ),
      ).toEqual([
        { name: "ng-old", client_mtu: 1280, alternate_ports: [443], node_resolver: false },
        { name: "ng-old-443", client_mtu: 1280, alternate_ports: [], node_resolver: false },
      ]);
      // The database refuses what no entry point may write.
      for (const change of [
        sql`update vpn_servers set client_mtu = 1500`,
        sql`update vpn_servers set alternate_ports = '{443,1,2,3,4}'`,
        sql`update vpn_servers set alternate_ports = '{70000}'`,
        sql`update vpn_servers set alternate_ports = '{51820}' where name = 'ng-old'`,
      ])
        await expect(db.execute(change)).rejects.toThrow();
      // A server created after the upgrade uses its node's resolver.
      await db.execute(
        sql`insert into vpn_servers (name, endpoint, ipv4_cidr, ipv6_cidr, dns, node_token_hash)
            values ('ng-new', '203.0.113.8:51820', '10.61.0.0/16', 'fd61::/64', '1.1.1.1', 'hash-new')`,
      );
      const [fresh] = await queryRows<{ node_resolver: boolean }>(
        db,
        sql`select node_resolver from vpn_servers where name = 'ng-new'`,
      );
      expect(fresh!.node_resolver).toBe(true);
    } finally {
      await client.close();
    }
  });
});
