// The staff console's servers page and its actions (issue 15, decision 078): /admin/servers and
// /api/admin/servers/*, as an admin; who else may call them is the authorisation matrix's job.
import { desc, eq, ne } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { staffAuditLog, vpnServers } from "#server/db/schema/index.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { listServerHealth } from "#server/domain/ops/server-health.ts";
import { hashToken } from "#server/secrets.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { addTestSubscription, addTestVpnServer, deviceRow, issueTestDevice } from "../../support/vpn.ts";
import { createAccount, queuedEmails, STAFF_EMAIL } from "../../support/staff.ts";

const MISSING_ID = "00000000-0000-4000-8000-000000000000";

describe.each(databaseKinds)("staff console servers on %s", (kind) => {
  let app: TestApp;
  let cookie: string;
  beforeAll(async () => {
    app = await createTestApp({ kind });
    cookie = (await createAccount(app, STAFF_EMAIL)).cookie;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  const post = async (action: string, body: unknown) => {
    const response = await app.request(`/api/admin/servers/${action}`, { json: body, headers: { cookie } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const serverRow = async (id: string) =>
    (await app.services.db.select().from(vpnServers).where(eq(vpnServers.id, id)))[0]!;
  const auditOf = (targetId: string) =>
    app.services.db
      .select()
      .from(staffAuditLog)
      .where(eq(staffAuditLog.targetId, targetId))
      .orderBy(desc(staffAuditLog.id));
  const nodeCall = (token: string) =>
    app.request("/api/nodes/peers", { headers: { authorization: `Bearer ${token}` } });
  const newDevice = async (email = "buyer@example.com") =>
    issueTestDevice(
      app.services,
      await addTestSubscription(app.services.db, { customerEmail: email, deviceLimit: 1 }),
    );
  /** Only `id` takes new devices (the demo's development server is never chosen once a real one exists). */
  const onlyTakes = async (id: string) => {
    await app.services.db.update(vpnServers).set({ status: "draining" }).where(ne(vpnServers.id, id));
    await app.services.db.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.id, id));
  };

  it("adds a server as add-server does: its node token once in the answer, never in the log or the page", async () => {
    const fields = {
      name: "ng-console-1",
      endpoint: "203.0.113.60:51820",
      ipv4: "10.60.0.0/24",
      ipv6: "fd60::/64",
    };
    for (const bad of [
      { ...fields, reason: "" },
      { ...fields, name: "Bad Name", reason: "new capacity" },
      { ...fields, endpoint: "203.0.113.60", reason: "new capacity" },
      { ...fields, ipv4: "10.60.0.0/33", reason: "new capacity" },
      { ...fields, reason: "new capacity", extra: true },
    ]) {
      const refused = await post("add", bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
    expect(
      await app.services.db.select().from(vpnServers).where(eq(vpnServers.name, "ng-console-1")),
    ).toEqual([]);

    const added = await post("add", { ...fields, region: "ng-abuja", reason: "new capacity in Abuja" });
    expect(added.status).toBe(200);
    const nodeToken = added.body.nodeToken as string;
    const server = added.body.server as { id: string; name: string; status: string };
    expect(server).toMatchObject({ name: "ng-console-1", status: "active", region: "ng-abuja" });
    expect((await serverRow(server.id)).nodeTokenHash).toBe(hashToken(nodeToken));
    expect((await nodeCall(nodeToken)).status).toBe(200);
    expect(app.log.text).not.toContain(nodeToken);
    const page = await (await app.request("/admin/servers", { headers: { cookie } })).text();
    expect(page).toContain("ng-console-1");
    expect(page).not.toContain(nodeToken);
    const [entry] = await auditOf(server.id);
    expect(entry).toMatchObject({
      action: "server.add",
      staffEmail: STAFF_EMAIL,
      reason: "new capacity in Abuja",
    });
    expect(JSON.stringify(entry!.details)).not.toContain(nodeToken);

    const taken = await post("add", { ...fields, reason: "again" });
    expect(taken.status).toBe(400);
    expect(taken.body.message).toContain("already exists");
    expect(await auditOf(server.id)).toHaveLength(1);
  });

  it("rotates a node token: the old one stops working, the new one is shown once and never logged", async () => {
    const server = await addTestVpnServer(app.services.db, { name: "ng-rotate", octet: 61 });
    expect((await post("rotate-token", { serverId: "ng-rotate", reason: "leaked" })).status).toBe(400);
    expect((await post("rotate-token", { serverId: server.id })).status).toBe(400);
    const missing = await post("rotate-token", { serverId: MISSING_ID, reason: "leaked" });
    expect(missing.status).toBe(404);
    const before = await serverRow(server.id);

    const rotated = await post("rotate-token", { serverId: server.id, reason: "token leaked in a ticket" });
    expect(rotated.status).toBe(200);
    const nodeToken = rotated.body.nodeToken as string;
    expect((await serverRow(server.id)).nodeTokenHash).not.toBe(before.nodeTokenHash);
    expect((await nodeCall(nodeToken)).status).toBe(200);
    expect(app.log.text).not.toContain(nodeToken);
    const [entry] = await auditOf(server.id);
    expect(entry).toMatchObject({ action: "server.rotate-token", reason: "token leaked in a ticket" });
    expect(JSON.stringify(entry)).not.toContain(nodeToken);

    const again = await post("rotate-token", { serverId: server.id, reason: "and again" });
    expect((await nodeCall(nodeToken)).status).toBe(401);
    expect((await nodeCall(again.body.nodeToken as string)).status).toBe(200);
  });

  it("sets an endpoint in the one endpoint grammar; a bad one changes nothing and records nothing", async () => {
    const server = await addTestVpnServer(app.services.db, { name: "ng-endpoint", octet: 62 });
    for (const endpoint of ["2001:db8::7:51820", "vpn.example.com", "vpn.example.com:70000"]) {
      const refused = await post("set-endpoint", { serverId: server.id, endpoint, reason: "new address" });
      expect(refused.status, endpoint).toBe(400);
      expect(refused.body.message).toMatch(/host:port/);
    }
    expect(
      (await post("set-endpoint", { serverId: MISSING_ID, endpoint: "a.example:1", reason: "x y z" })).status,
    ).toBe(404);
    expect((await serverRow(server.id)).endpoint).toBe("203.0.113.10:51820");
    expect(await auditOf(server.id)).toEqual([]);

    const changed = await post("set-endpoint", {
      serverId: server.id,
      endpoint: "[2001:db8::9]:51821",
      reason: "moved to the new rack",
    });
    expect(changed.status).toBe(200);
    expect(changed.body.server).toMatchObject({ endpoint: "[2001:db8::9]:51821" });
    expect((await auditOf(server.id))[0]).toMatchObject({
      action: "server.set-endpoint",
      reason: "moved to the new rack",
      details: { from: "203.0.113.10:51820", to: "[2001:db8::9]:51821" },
    });
  });

  it("drains (new devices go elsewhere, its devices keep their peers), disables (its node drops them) and enables; the status it has is 409", async () => {
    const server = await addTestVpnServer(app.services.db, { name: "ng-states", octet: 63 });
    const other = await addTestVpnServer(app.services.db, { name: "ng-states-other", octet: 64 });
    await onlyTakes(server.id);
    const kept = await newDevice();
    expect(kept.server.id).toBe(server.id);
    await app.services.db.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.id, other.id));
    const health = async () => (await listServerHealth(app.services.db)).find((row) => row.id === server.id)!;
    expect(await health()).toMatchObject({ status: "active", desiredPeers: 1, liveDevices: 1 });

    expect((await post("drain", { serverId: MISSING_ID, reason: "maintenance" })).status).toBe(404);
    const drained = await post("drain", { serverId: server.id, reason: "kernel upgrade tonight" });
    expect(drained.status).toBe(200);
    expect(drained.body.server).toMatchObject({ status: "draining" });
    expect((await newDevice()).server.id).toBe(other.id);
    expect(await health()).toMatchObject({ status: "draining", desiredPeers: 1 });
    const twice = await post("drain", { serverId: server.id, reason: "kernel upgrade tonight" });
    expect(twice).toMatchObject({
      status: 409,
      body: { message: "VPN server ng-states is already draining." },
    });

    expect((await post("disable", { serverId: server.id, reason: "node compromised" })).status).toBe(200);
    expect(await health()).toMatchObject({ status: "disabled", desiredPeers: 0, liveDevices: 1 });
    expect(await deviceRow(app.services.db, kept.device.id)).toMatchObject({
      revokedAt: null,
      vpnServerId: server.id,
    });

    expect((await post("enable", { serverId: server.id, reason: "node rebuilt" })).status).toBe(200);
    expect(await health()).toMatchObject({ status: "active", desiredPeers: 1 });
    expect((await auditOf(server.id)).map((entry) => [entry.action, entry.reason, entry.details])).toEqual([
      ["server.enable", "node rebuilt", { name: "ng-states", from: "disabled", to: "active" }],
      ["server.disable", "node compromised", { name: "ng-states", from: "draining", to: "disabled" }],
      ["server.drain", "kernel upgrade tonight", { name: "ng-states", from: "active", to: "draining" }],
    ]);
  });

  it("moves every device off a draining server to others, each owner e-mailed; refused (409) while it is active", async () => {
    const leaving = await addTestVpnServer(app.services.db, { name: "ng-leaving", octet: 65 });
    const staying = await addTestVpnServer(app.services.db, { name: "ng-staying", octet: 67 });
    await onlyTakes(leaving.id);
    const first = await newDevice("first-owner@example.com");
    const second = await newDevice("second-owner@example.com");

    const refused = await post("move-devices", { serverId: leaving.id, reason: "retiring it" });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("Drain ng-leaving first");
    expect(await auditOf(leaving.id)).toEqual([]);
    expect((await post("move-devices", { serverId: MISSING_ID, reason: "retiring it" })).status).toBe(404);

    await app.services.db.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.id, staying.id));
    expect((await post("drain", { serverId: leaving.id, reason: "retiring it" })).status).toBe(200);
    const moved = await post("move-devices", { serverId: leaving.id, reason: "retiring it" });
    expect(moved).toMatchObject({ status: 200, body: { moved: 2, remaining: 0 } });
    for (const { device, downloadToken } of [first, second]) {
      expect(await deviceRow(app.services.db, device.id)).toMatchObject({ revokedAt: null });
      expect((await deviceRow(app.services.db, device.id))!.vpnServerId).not.toBe(leaving.id);
      // The same link now renders a config for the new server: an address in its pool.
      const config = await (await app.request(`/api/configs/${downloadToken}`)).text();
      expect(config).toMatch(/^Address = 10\.67\.0\.\d+\/32, fd67::[0-9a-f]+\/128$/m);
    }
    expect((await serverRow(leaving.id)).liveDevices).toBe(0);
    for (const owner of ["first-owner@example.com", "second-owner@example.com"]) {
      const subjects = (await queuedEmails(app, owner)).map((email) => email.subject);
      expect(subjects.some((subject) => /moved .* to another server/.test(subject))).toBe(true);
    }
    expect((await auditOf(leaving.id))[0]).toMatchObject({
      action: "server.move-devices",
      reason: "retiring it",
      details: { name: "ng-leaving", liveDevices: 2 },
    });
  });

  it("shows what the node reported: last seen, applied peers and version, peers connected in the last 3 minutes", async () => {
    const server = await addTestVpnServer(app.services.db, { name: "ng-reporting", octet: 68 });
    await onlyTakes(server.id);
    const connected = await newDevice();
    await newDevice();
    const rotated = await post("rotate-token", { serverId: server.id, reason: "to test the agent" });
    const auth = { authorization: `Bearer ${rotated.body.nodeToken as string}` };
    const peers = (await (await app.request("/api/nodes/peers", { headers: auth })).json()) as {
      version: string;
    };
    const now = new Date();
    const reported = await app.request("/api/nodes/status", {
      headers: auth,
      json: {
        publicKey: generateKeyPair().publicKey,
        appliedVersion: peers.version,
        appliedPeers: 2,
        peers: [
          { publicKey: connected.device.publicKey, latestHandshake: Math.floor(now.getTime() / 1000) - 60 },
        ],
      },
    });
    expect(reported.status).toBe(200);
    const row = (await listServerHealth(app.services.db, now)).find((entry) => entry.id === server.id)!;
    expect(row).toMatchObject({
      desiredPeers: 2,
      desiredVersion: peers.version,
      appliedVersion: peers.version,
      appliedPeers: 2,
      connectedPeers: 1,
      liveDevices: 2,
      capacity: 65_534,
    });
    expect(row.lastSeenAt).not.toBeNull();
    const fourMinutesLater = new Date(now.getTime() + 4 * 60_000);
    expect(
      (await listServerHealth(app.services.db, fourMinutesLater)).find((entry) => entry.id === server.id),
    ).toMatchObject({ connectedPeers: 0 });
    const page = await (await app.request("/admin/servers", { headers: { cookie } })).text();
    expect(page).toContain("ng-reporting");
    expect(page).toContain("(in sync)");
  });
});
