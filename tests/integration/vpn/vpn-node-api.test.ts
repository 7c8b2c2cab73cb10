// The control plane's node API (agent/) and the admin token that adds VPN servers.
import fs from "node:fs/promises";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vpnServers } from "#server/db/schema/index.ts";
import { ADMIN_TOKEN_FILE } from "#server/domain/vpn/admin-token.ts";
import { markActivated, revokeDevice } from "#server/domain/vpn/devices.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { countActiveDevices } from "#server/domain/vpn/nodes.ts";
import { rotateNodeToken } from "#server/domain/vpn/servers.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { addServerViaAdmin, adminToken } from "../../support/vpn-admin.ts";
import {
  addTestSubscription,
  captureTransport,
  deviceRow,
  issueTestDevice,
  type TestDevice,
} from "../../support/vpn.ts";

let app: TestApp;
const mail = captureTransport();

beforeAll(async () => {
  app = await createTestApp({ transport: mail });
});
afterAll(async () => {
  await app?.close();
});

describe("the node API", () => {
  it("refuses a missing or wrong node token with 401 JSON", async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer wrong-token-wrong-token" },
      { authorization: "Basic abc" },
    ];
    for (const headers of attempts) {
      const peers = await app.request("/api/nodes/peers", { headers });
      expect(peers.status).toBe(401);
      expect(await peers.json()).toMatchObject({ error: "Unauthorized" });
      const status = await app.request("/api/nodes/status", { json: {}, headers });
      expect(status.status).toBe(401);
    }
  });

  it("registers the node's key, serves its peers with a version and records handshakes", async () => {
    const { nodeToken, name } = await addServerViaAdmin(app, "ng-test-node");
    const auth = { authorization: `Bearer ${nodeToken}` };
    // Until its agent registers a key, the new server takes no devices: move every other server aside.
    await app.services.db.update(vpnServers).set({ status: "draining" });
    await app.services.db.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.name, name));
    await expect(
      issueTestDevice(app.services, await addTestSubscription(app.services.db, { deviceLimit: 1 })),
    ).rejects.toThrow(/No active VPN server has a free address/);

    const node = generateKeyPair();
    const registered = await app.request("/api/nodes/status", {
      json: { publicKey: node.publicKey, appliedVersion: null, peers: [] },
      headers: auth,
    });
    expect(registered.status).toBe(200);
    const [server] = await app.services.db.select().from(vpnServers).where(eq(vpnServers.name, name));
    expect(server!.publicKey).toBe(node.publicKey);
    expect(server!.lastSeenAt).not.toBeNull();

    const subscription = await addTestSubscription(app.services.db, { deviceLimit: 1 });
    const issued = await issueTestDevice(app.services, subscription);
    expect(issued.server.name).toBe(name);

    const response = await app.request("/api/nodes/peers", { headers: auth });
    expect(response.status).toBe(200);
    const etag = response.headers.get("etag")!;
    const body = (await response.json()) as {
      version: string;
      server: { listenPort: number; ipv4: string };
      peers: Array<{ publicKey: string; presharedKey: string; allowedIps: string[] }>;
    };
    expect(etag).toBe(`"${body.version}"`);
    expect(body.server).toMatchObject({ listenPort: 51820, ipv4: "10.70.0.1/24" });
    expect(body.peers).toEqual([
      {
        publicKey: issued.device.publicKey,
        presharedKey: app.services.sealer.unseal(issued.device.presharedKeySealed),
        allowedIps: [`${issued.device.ipv4}/32`, `${issued.device.ipv6}/128`],
      },
    ]);

    const unchanged = await app.request("/api/nodes/peers", { headers: { ...auth, "if-none-match": etag } });
    expect(unchanged.status).toBe(304);

    // A handshake makes the device count as active.
    const handshake = await app.request("/api/nodes/status", {
      json: {
        publicKey: node.publicKey,
        appliedVersion: body.version,
        peers: [{ publicKey: issued.device.publicKey, latestHandshake: Math.floor(Date.now() / 1000) - 5 }],
      },
      headers: auth,
    });
    expect(await handshake.json()).toMatchObject({ handshakesRecorded: 1 });
    expect(await countActiveDevices(app.services.db, subscription.id)).toBe(1);

    await revokeDevice(app.services.db, issued.device.id);
    const afterRevoke = await app.request("/api/nodes/peers", {
      headers: { ...auth, "if-none-match": etag },
    });
    expect(afterRevoke.status).toBe(200);
    expect(((await afterRevoke.json()) as { peers: unknown[] }).peers).toEqual([]);
    expect(await countActiveDevices(app.services.db, subscription.id)).toBe(0);

    const bad = await app.request("/api/nodes/status", { json: { publicKey: "nope" }, headers: auth });
    expect(bad.status).toBe(400);
    // An out-of-range handshake time is refused before anything is written.
    const [seenBefore] = await app.services.db.select().from(vpnServers).where(eq(vpnServers.name, name));
    for (const latestHandshake of [1e15, -1, 1.5]) {
      const outOfRange = await app.request("/api/nodes/status", {
        json: { publicKey: node.publicKey, peers: [{ publicKey: issued.device.publicKey, latestHandshake }] },
        headers: auth,
      });
      expect(outOfRange.status, String(latestHandshake)).toBe(400);
    }
    const [seenAfter] = await app.services.db.select().from(vpnServers).where(eq(vpnServers.name, name));
    expect(seenAfter!.lastSeenAt).toEqual(seenBefore!.lastSeenAt);
    await app.services.db.update(vpnServers).set({ status: "active" });
  });

  it("refuses with 409 a node key another server already uses, and changes nothing", async () => {
    const first = await addServerViaAdmin(app, "ng-key-first");
    const second = await addServerViaAdmin(app, "ng-key-second");
    const key = generateKeyPair().publicKey;
    const report = (nodeToken: string) =>
      app.request("/api/nodes/status", {
        json: { publicKey: key, peers: [] },
        headers: { authorization: `Bearer ${nodeToken}` },
      });
    expect((await report(first.nodeToken)).status).toBe(200);
    const refused = await report(second.nodeToken);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: "Conflict" });
    const [row] = await app.services.db.select().from(vpnServers).where(eq(vpnServers.name, second.name));
    expect(row).toMatchObject({ publicKey: null, lastSeenAt: null });
  });

  it("lets only the holder of the server's admin token add VPN servers, with clear errors", async () => {
    const unauthorized = await app.request("/api/nodes/servers", { json: { command: "list-servers" } });
    expect(unauthorized.status).toBe(401);
    const auth = { authorization: `Bearer ${await adminToken(app)}` };
    const invalid = await app.request("/api/nodes/servers", {
      json: {
        command: "add-server",
        name: "ng-bad",
        endpoint: "nowhere",
        ipv4: "10.0.0.0/33",
        ipv6: "fd00::/64",
      },
      headers: auth,
    });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: "Invalid request" });
    await addServerViaAdmin(app, "ng-dup");
    const duplicate = await app.request("/api/nodes/servers", {
      json: {
        command: "add-server",
        name: "ng-dup",
        endpoint: "203.0.113.9:51820",
        ipv4: "10.71.0.0/24",
        ipv6: "fd71::/64",
      },
      headers: auth,
    });
    expect(duplicate.status).toBe(400);
    const list = (await (
      await app.request("/api/nodes/servers", { json: { command: "list-servers" }, headers: auth })
    ).json()) as {
      servers: Array<{ name: string }>;
    };
    expect(list.servers.map((server) => server.name)).toContain("ng-dup");
    const stat = await fs.stat(path.join(app.dataDir, ADMIN_TOKEN_FILE));
    expect(stat.mode & 0o777).toBe(0o600);
  });
});

describe.each(databaseKinds)("activation by a WireGuard handshake on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });

  /** What the node agent of the device's own server reports: this handshake time for the device. */
  async function reportHandshake(issued: TestDevice, at: Date, nodeToken?: string) {
    const token = nodeToken ?? (await rotateNodeToken(app.services.db, issued.server.name))!.nodeToken;
    const [server] = await app.services.db
      .select()
      .from(vpnServers)
      .where(eq(vpnServers.id, issued.server.id));
    const response = await app.request("/api/nodes/status", {
      json: {
        publicKey: nodeToken ? generateKeyPair().publicKey : server!.publicKey,
        peers: [{ publicKey: issued.device.publicKey, latestHandshake: at.getTime() / 1000 }],
      },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { handshakesRecorded: number };
  }
  const newDevice = async () =>
    issueTestDevice(app.services, await addTestSubscription(app.services.db, { deviceLimit: 1 }));

  it("activates a device at its first reported handshake, via handshake, and a later one changes nothing", async () => {
    const issued = await newDevice();
    const first = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    expect(await reportHandshake(issued, first)).toEqual({
      ok: true,
      handshakesRecorded: 1,
      // The services its agent checks from the exit (decision 133): none listed here.
      streamingChecks: [],
    });
    expect(await deviceRow(app.services.db, issued.device.id)).toMatchObject({
      activatedVia: "handshake",
      activatedAt: first,
      lastHandshakeAt: first,
    });
    const later = new Date(first.getTime() + 30_000);
    await reportHandshake(issued, later);
    expect(await deviceRow(app.services.db, issued.device.id)).toMatchObject({
      activatedVia: "handshake",
      activatedAt: first,
      lastHandshakeAt: later,
    });
  });

  it("dates activation by the handshake when it came before a download reported earlier", async () => {
    const issued = await newDevice();
    const downloadedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 10_000);
    await markActivated(app.services.db, issued.device.id, "download", downloadedAt);
    const handshake = new Date(downloadedAt.getTime() - 120_000);
    await reportHandshake(issued, handshake);
    expect(await deviceRow(app.services.db, issued.device.id)).toMatchObject({
      activatedVia: "handshake",
      activatedAt: handshake,
    });
    // A handshake after the download leaves the download as the activation.
    const downloaded = await newDevice();
    await markActivated(app.services.db, downloaded.device.id, "download", downloadedAt);
    await reportHandshake(downloaded, new Date(downloadedAt.getTime() + 5_000));
    expect(await deviceRow(app.services.db, downloaded.device.id)).toMatchObject({
      activatedVia: "download",
      activatedAt: downloadedAt,
    });
  });

  it("does not activate a device when another server's node reports a handshake for its key", async () => {
    const issued = await newDevice();
    const other = await addServerViaAdmin(app, "ng-other-node");
    const answer = await reportHandshake(
      issued,
      new Date(Math.floor(Date.now() / 1000) * 1000),
      other.nodeToken,
    );
    expect(answer.handshakesRecorded).toBe(0);
    expect(await deviceRow(app.services.db, issued.device.id)).toMatchObject({
      activatedAt: null,
      activatedVia: null,
      lastHandshakeAt: null,
    });
  });
});
