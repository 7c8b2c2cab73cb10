// The control plane's node API (agent/) and the admin token that adds VPN servers.
import fs from "node:fs/promises";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vpnServers } from "#server/db/schema/index.ts";
import { ADMIN_TOKEN_FILE } from "#server/domain/vpn/admin-token.ts";
import { revokeDevice } from "#server/domain/vpn/devices.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { countActiveDevices } from "#server/domain/vpn/nodes.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { addServerViaAdmin, adminToken } from "../support/vpn-admin.ts";
import { addTestSubscription, captureTransport, issueTestDevice } from "../support/vpn.ts";

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
    await app.services.db.update(vpnServers).set({ active: false });
    await app.services.db.update(vpnServers).set({ active: true }).where(eq(vpnServers.name, name));
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
    await app.services.db.update(vpnServers).set({ active: true });
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
