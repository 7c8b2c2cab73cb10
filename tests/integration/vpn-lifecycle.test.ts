import fs from "node:fs/promises";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devices, subscriptions, vpnServers, type Subscription } from "#server/db/schema/index.ts";
import type { QueuedEmail } from "#server/domain/mail/outbox.ts";
import type { MailTransport } from "#server/domain/mail/transport.ts";
import { ADMIN_TOKEN_FILE } from "#server/domain/vpn/admin-token.ts";
import { queueConfigEmail } from "#server/domain/vpn/config-email.ts";
import { issueDevice, revokeDevice, type IssuedDevice } from "#server/domain/vpn/devices.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { expireDue } from "#server/domain/vpn/lifecycle.ts";
import { countActiveDevices } from "#server/domain/vpn/nodes.ts";
import { createTestApp, type TestApp } from "../support/app.ts";

function captureTransport(): MailTransport & { sent: QueuedEmail[] } {
  const sent: QueuedEmail[] = [];
  return {
    description: "capture",
    sent,
    async send(email) {
      sent.push(email);
    },
    close() {},
  };
}

let app: TestApp;
const mail = captureTransport();
let sessionCounter = 0;

async function newSubscription(values: Partial<Subscription> = {}) {
  sessionCounter += 1;
  const [subscription] = await app.services.db
    .insert(subscriptions)
    .values({
      planId: "pro-monthly",
      planType: "pro_monthly",
      deviceLimit: 3,
      customerEmail: "buyer@example.com",
      expiresAt: new Date(Date.now() + 30 * 86_400_000),
      checkoutSessionId: `cs_test_lifecycle_${sessionCounter}_${Date.now()}`,
      ...values,
    })
    .returning();
  return subscription!;
}

/** Issues a device and queues its e-mail in one transaction, as fulfilment does. */
async function issueWithEmail(subscription: Subscription): Promise<IssuedDevice> {
  const issued = await app.services.db.transaction(async (tx) => {
    const device = await issueDevice(tx, app.services.sealer, subscription);
    await queueConfigEmail(tx, app.services, device, subscription);
    return device;
  });
  app.services.mail.wake();
  return issued;
}

async function deviceRow(id: string) {
  const [row] = await app.services.db.select().from(devices).where(eq(devices.id, id));
  return row!;
}

async function adminToken() {
  const file = JSON.parse(await fs.readFile(path.join(app.dataDir, ADMIN_TOKEN_FILE), "utf8")) as {
    token: string;
  };
  return file.token;
}

async function addServerViaAdmin(name: string) {
  const response = await app.request("/api/nodes/servers", {
    json: {
      command: "add-server",
      name,
      endpoint: "203.0.113.20:51820",
      ipv4: "10.70.0.0/24",
      ipv6: "fd70::/64",
    },
    headers: { authorization: `Bearer ${await adminToken()}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { name: string; nodeToken: string };
}

beforeAll(async () => {
  app = await createTestApp({ transport: mail });
});
afterAll(async () => {
  await app?.close();
});

describe("config downloads", () => {
  it("serves the .conf as an attachment named after the brand and slot, and the first download activates it", async () => {
    const subscription = await newSubscription();
    const first = await issueWithEmail(subscription);
    const second = await issueWithEmail(subscription);
    expect(second.device.slot).toBe(2);

    const response = await app.request(`/api/configs/${second.downloadToken}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="NaijaLink2.conf"');
    const text = await response.text();
    expect(text).toContain("[Interface]");
    expect(text).toContain("AllowedIPs = 0.0.0.0/0, ::/0");
    const activated = await deviceRow(second.device.id);
    expect(activated.activatedVia).toBe("download");

    // A later QR view changes nothing; the first QR view of another device records "qr".
    expect((await app.request(`/api/configs/${second.downloadToken}/qr.svg`)).status).toBe(200);
    const again = await deviceRow(second.device.id);
    expect(again.activatedVia).toBe("download");
    expect(again.activatedAt?.getTime()).toBe(activated.activatedAt?.getTime());
    const qr = await app.request(`/api/configs/${first.downloadToken}/qr.svg`);
    expect(qr.headers.get("content-type")).toBe("image/svg+xml");
    expect(await qr.text()).toMatch(/^<svg/);
    expect((await deviceRow(first.device.id)).activatedVia).toBe("qr");
  });

  it("answers 404 JSON for an unknown or malformed token", async () => {
    for (const token of ["AAAAAAAAAAAAAAAAAAAAAA", "not a token", "x"]) {
      const response = await app.request(`/api/configs/${encodeURIComponent(token)}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: "Not found" });
    }
  });

  it("answers 410 JSON once the device is revoked or its subscription has ended", async () => {
    const revoked = await issueWithEmail(await newSubscription({ deviceLimit: 1 }));
    await revokeDevice(app.services.db, revoked.device.id);
    const expiredSubscription = await newSubscription({ deviceLimit: 1 });
    const expired = await issueWithEmail(expiredSubscription);
    await app.services.db
      .update(subscriptions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(subscriptions.id, expiredSubscription.id));
    for (const token of [revoked.downloadToken, expired.downloadToken]) {
      for (const suffix of ["", "/qr.svg"]) {
        const response = await app.request(`/api/configs/${token}${suffix}`);
        expect(response.status).toBe(410);
        const body = (await response.json()) as { error: string; message: string };
        expect(body.error).toBe("Gone");
        expect(body.message.length).toBeGreaterThan(10);
      }
    }
    expect((await deviceRow(revoked.device.id)).activatedAt).toBeNull();
  });

  it("names the file after the configured brand", async () => {
    const branded = await createTestApp({ env: { BRAND_NAME: "LagosLink" } });
    try {
      const [subscription] = await branded.services.db
        .insert(subscriptions)
        .values({
          planId: "unlock",
          planType: "unlock",
          deviceLimit: 1,
          expiresAt: new Date(Date.now() + 7 * 86_400_000),
          checkoutSessionId: "cs_test_brand",
        })
        .returning();
      const issued = await branded.services.db.transaction((tx) =>
        issueDevice(tx, branded.services.sealer, subscription!),
      );
      const response = await branded.request(`/api/configs/${issued.downloadToken}`);
      expect(response.headers.get("content-disposition")).toBe('attachment; filename="LagosLink1.conf"');
    } finally {
      await branded.close();
    }
  });
});

describe("the config e-mail", () => {
  it("sends the download link, import steps and the .conf to the customer", async () => {
    const subscription = await newSubscription({ customerEmail: "ada@example.com", deviceLimit: 1 });
    const issued = await issueWithEmail(subscription);
    await app.services.mail.drain();
    const email = mail.sent.find((entry) => entry.to === "ada@example.com");
    expect(email).toBeDefined();
    expect(email!.kind).toBe("vpn-config");
    expect(email!.text).toContain(`http://localhost:3000/api/configs/${issued.downloadToken}`);
    expect(email!.text).toContain("Add Tunnel");
    expect(email!.attachments).toHaveLength(1);
    expect(email!.attachments![0]!.filename).toBe("NaijaLink1.conf");
    const download = await app.request(`/api/configs/${issued.downloadToken}`);
    expect(email!.attachments![0]!.content).toBe(await download.text());
  });

  it("is queued with the device, so a rolled-back issue sends nothing", async () => {
    const subscription = await newSubscription({ customerEmail: "rollback@example.com", deviceLimit: 1 });
    await expect(
      app.services.db.transaction(async (tx) => {
        const issued = await issueDevice(tx, app.services.sealer, subscription);
        await queueConfigEmail(tx, app.services, issued, subscription);
        throw new Error("payment record failed");
      }),
    ).rejects.toThrow("payment record failed");
    await app.services.mail.drain();
    expect(mail.sent.some((entry) => entry.to === "rollback@example.com")).toBe(false);
    expect(
      await app.services.db.select().from(devices).where(eq(devices.subscriptionId, subscription.id)),
    ).toHaveLength(0);
  });

  it("is skipped when the subscription has no e-mail address", async () => {
    const subscription = await newSubscription({ customerEmail: null, deviceLimit: 1 });
    const id = await app.services.db.transaction(async (tx) => {
      const issued = await issueDevice(tx, app.services.sealer, subscription);
      return queueConfigEmail(tx, app.services, issued, subscription);
    });
    expect(id).toBeNull();
  });
});

describe("subscription expiry", () => {
  it("ends lapsed subscriptions, revokes their devices and those of refunded ones, and leaves the rest", async () => {
    const now = new Date();
    const lapsed = await newSubscription({ expiresAt: new Date(now.getTime() - 60_000) });
    const cancelling = await newSubscription({
      status: "past_due",
      cancelAtPeriodEnd: true,
      expiresAt: new Date(now.getTime() - 60_000),
    });
    const current = await newSubscription();
    const lapsedDevice = await issueWithEmail({ ...lapsed, expiresAt: now });
    const cancellingDevice = await issueWithEmail(cancelling);
    const currentDevice = await issueWithEmail(current);
    const refunded = await newSubscription();
    const refundedDevice = await issueWithEmail(refunded);
    await app.services.db
      .update(subscriptions)
      .set({ status: "refunded" })
      .where(eq(subscriptions.id, refunded.id));

    const result = await expireDue(app.services.db, now);
    expect(result.ended).toBeGreaterThanOrEqual(2);
    expect(result.revokedDevices).toBeGreaterThanOrEqual(3);

    const status = async (id: string) =>
      (await app.services.db.select().from(subscriptions).where(eq(subscriptions.id, id)))[0]!.status;
    expect(await status(lapsed.id)).toBe("expired");
    expect(await status(cancelling.id)).toBe("canceled");
    expect(await status(current.id)).toBe("active");
    expect(await status(refunded.id)).toBe("refunded");
    for (const issued of [lapsedDevice, cancellingDevice, refundedDevice]) {
      expect((await deviceRow(issued.device.id)).revokedAt).not.toBeNull();
      expect((await app.request(`/api/configs/${issued.downloadToken}`)).status).toBe(410);
    }
    expect((await deviceRow(currentDevice.device.id)).revokedAt).toBeNull();
    expect(await expireDue(app.services.db, now)).toEqual({ ended: 0, revokedDevices: 0 });
  });
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
    const { nodeToken, name } = await addServerViaAdmin("ng-test-node");
    const auth = { authorization: `Bearer ${nodeToken}` };
    // Until its agent registers a key, the new server takes no devices: move every other server aside.
    await app.services.db.update(vpnServers).set({ active: false });
    await app.services.db.update(vpnServers).set({ active: true }).where(eq(vpnServers.name, name));
    await expect(issueWithEmail(await newSubscription({ deviceLimit: 1 }))).rejects.toThrow(
      /No active VPN server has a free address/,
    );

    const node = generateKeyPair();
    const registered = await app.request("/api/nodes/status", {
      json: { publicKey: node.publicKey, appliedVersion: null, peers: [] },
      headers: auth,
    });
    expect(registered.status).toBe(200);
    const [server] = await app.services.db.select().from(vpnServers).where(eq(vpnServers.name, name));
    expect(server!.publicKey).toBe(node.publicKey);
    expect(server!.lastSeenAt).not.toBeNull();

    const subscription = await newSubscription({ deviceLimit: 1 });
    const issued = await issueWithEmail(subscription);
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
    await app.services.db.update(vpnServers).set({ active: true });
  });

  it("lets only the holder of the server's admin token add VPN servers, with clear errors", async () => {
    const unauthorized = await app.request("/api/nodes/servers", { json: { command: "list-servers" } });
    expect(unauthorized.status).toBe(401);
    const auth = { authorization: `Bearer ${await adminToken()}` };
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
    await addServerViaAdmin("ng-dup");
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

describe("secrets in the log", () => {
  it("never writes a private key, preshared key or token to the app log", async () => {
    const { nodeToken } = await addServerViaAdmin("ng-log-check");
    const subscription = await newSubscription({ deviceLimit: 1, customerEmail: "log@example.com" });
    const issued = await issueWithEmail(subscription);
    await app.services.mail.drain();
    await app.request(`/api/configs/${issued.downloadToken}`);
    await app.request(`/api/configs/${issued.downloadToken}/qr.svg`);
    await app.request("/api/nodes/peers", { headers: { authorization: `Bearer ${nodeToken}` } });
    await app.request("/api/nodes/status", {
      json: { publicKey: generateKeyPair().publicKey, peers: [] },
      headers: { authorization: `Bearer ${nodeToken}` },
    });
    // A failing call logs too: the error path must not leak either.
    await app.request("/api/nodes/status", {
      json: { publicKey: "x" },
      headers: { authorization: `Bearer ${nodeToken}` },
    });

    const row = await deviceRow(issued.device.id);
    const secrets = [
      app.services.sealer.unseal(row.privateKeySealed),
      app.services.sealer.unseal(row.presharedKeySealed),
      issued.downloadToken,
      nodeToken,
      await adminToken(),
    ];
    expect(app.log.lines.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(app.log.text).not.toContain(secret);
  });
});
