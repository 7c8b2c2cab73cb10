// Configs as buyers receive them: the download link, the QR code, the config e-mail, and what never reaches the log.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devices, outboxMessages, subscriptions } from "#server/db/schema/index.ts";
import { queueConfigEmail } from "#server/domain/mail/config-email.ts";
import { activatingFetchHeaders } from "#core/config-activation.ts";
import { issueDevice, revokeDevice } from "#server/domain/vpn/devices.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { addServerViaAdmin, adminToken } from "../../support/vpn-admin.ts";
import {
  addTestSubscription,
  captureTransport,
  deviceRow,
  issueTestDevice,
  treatDevelopmentServerAsReal,
} from "../../support/vpn.ts";

let app: TestApp;
const mail = captureTransport();

beforeAll(async () => {
  app = await createTestApp({ transport: mail });
  await treatDevelopmentServerAsReal(app.services.db);
});
afterAll(async () => {
  await app?.close();
});

describe("config downloads", () => {
  it("serves the .conf as an attachment named after the brand and slot, and the success page's first download activates it", async () => {
    const subscription = await addTestSubscription(app.services.db);
    const first = await issueTestDevice(app.services, subscription);
    const second = await issueTestDevice(app.services, subscription);
    expect(second.device.slot).toBe(2);

    const response = await app.request(`/api/configs/${second.downloadToken}`, {
      headers: activatingFetchHeaders,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="NaijaLink2.conf"');
    const text = await response.text();
    expect(text).toContain("[Interface]");
    expect(text).toContain("AllowedIPs = 0.0.0.0/0, ::/0");
    const activated = await deviceRow(app.services.db, second.device.id);
    expect(activated.activatedVia).toBe("download");

    // A later QR view changes nothing; the page's first QR view of another device records "qr".
    const qrOfSecond = await app.request(`/api/configs/${second.downloadToken}/qr.svg`, {
      headers: activatingFetchHeaders,
    });
    expect(qrOfSecond.status).toBe(200);
    const again = await deviceRow(app.services.db, second.device.id);
    expect(again.activatedVia).toBe("download");
    expect(again.activatedAt?.getTime()).toBe(activated.activatedAt?.getTime());
    const qr = await app.request(`/api/configs/${first.downloadToken}/qr.svg`, {
      headers: activatingFetchHeaders,
    });
    expect(qr.headers.get("content-type")).toBe("image/svg+xml");
    expect(await qr.text()).toMatch(/^<svg/);
    expect((await deviceRow(app.services.db, first.device.id)).activatedVia).toBe("qr");
  });

  it("gives a link scanner's plain GET of the e-mailed link the file but does not activate the device", async () => {
    const subscription = await addTestSubscription(app.services.db, {
      customerEmail: "scanned@example.com",
      deviceLimit: 1,
    });
    const issued = await issueTestDevice(app.services, subscription);
    await app.services.mail.drain();
    const emailed = mail.sent.find((entry) => entry.to === "scanned@example.com")!;
    const link = /Download your config: (\S+)/.exec(emailed.text)![1]!;
    const scanner = {
      "user-agent": "Mozilla/5.0 (compatible; Microsoft Office Protection; Safe Links)",
      accept: "*/*",
      "sec-fetch-mode": "navigate",
      "sec-fetch-site": "none",
    };
    const path = new URL(link).pathname;
    const file = await app.request(path, { headers: scanner });
    expect(file.status).toBe(200);
    expect(await file.text()).toBe(emailed.attachments![0]!.content);
    expect((await app.request(`${path}/qr.svg`, { headers: scanner })).status).toBe(200);
    const row = await deviceRow(app.services.db, issued.device.id);
    expect(row).toMatchObject({ activatedAt: null, activatedVia: null });
  });

  it("answers 404 JSON for an unknown or malformed token", async () => {
    for (const token of ["AAAAAAAAAAAAAAAAAAAAAA", "not a token", "x"]) {
      const response = await app.request(`/api/configs/${encodeURIComponent(token)}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: "Not found" });
    }
  });

  it("answers 410 JSON once the device is revoked or its subscription has ended", async () => {
    const revoked = await issueTestDevice(
      app.services,
      await addTestSubscription(app.services.db, { deviceLimit: 1 }),
    );
    await revokeDevice(app.services.db, revoked.device.id);
    const expiredSubscription = await addTestSubscription(app.services.db, { deviceLimit: 1 });
    const expired = await issueTestDevice(app.services, expiredSubscription);
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
    expect((await deviceRow(app.services.db, revoked.device.id)).activatedAt).toBeNull();
  });

  it("names the file after the configured brand", async () => {
    const branded = await createTestApp({ env: { BRAND_NAME: "LagosLink" } });
    try {
      const subscription = await addTestSubscription(branded.services.db, {
        planId: "unlock",
        planType: "unlock",
        deviceLimit: 1,
        expiresAt: new Date(Date.now() + 7 * 86_400_000),
      });
      const issued = await issueTestDevice(branded.services, subscription!);
      const response = await branded.request(`/api/configs/${issued.downloadToken}`);
      expect(response.headers.get("content-disposition")).toBe('attachment; filename="LagosLink1.conf"');
    } finally {
      await branded.close();
    }
  });

  it("keeps the file name of a long brand within the 15 characters WireGuard apps accept", async () => {
    const branded = await createTestApp({ env: { BRAND_NAME: "NaijaLink Premium Streaming" } });
    try {
      const subscription = await addTestSubscription(branded.services.db, {
        planId: "unlock",
        planType: "unlock",
        deviceLimit: 1,
        expiresAt: new Date(Date.now() + 7 * 86_400_000),
      });
      const issued = await issueTestDevice(branded.services, subscription!);
      const response = await branded.request(`/api/configs/${issued.downloadToken}`);
      expect(response.headers.get("content-disposition")).toBe('attachment; filename="NaijaLink1.conf"');
    } finally {
      await branded.close();
    }
  });
});

describe("the config e-mail", () => {
  it("sends the download link, import steps and the .conf to the customer", async () => {
    const subscription = await addTestSubscription(app.services.db, {
      customerEmail: "ada@example.com",
      deviceLimit: 1,
    });
    const issued = await issueTestDevice(app.services, subscription);
    await app.services.mail.drain();
    const email = mail.sent.find((entry) => entry.to === "ada@example.com");
    expect(email).toBeDefined();
    expect(email!.kind).toBe("vpn-config");
    expect(email!.text).toContain(`http://localhost:3000/api/configs/${issued.downloadToken}`);
    expect(email!.text).toContain("Add Tunnel");
    expect(email!.attachments!.map((attachment) => attachment.filename)).toEqual([
      "NaijaLink1.conf",
      "config-qr.png",
    ]);
    const download = await app.request(`/api/configs/${issued.downloadToken}`);
    expect(email!.attachments![0]!.content).toBe(await download.text());
  });

  it("is queued with the device, so a rolled-back issue sends nothing", async () => {
    const subscription = await addTestSubscription(app.services.db, {
      customerEmail: "rollback@example.com",
      deviceLimit: 1,
    });
    await expect(
      app.services.db.transaction(async (tx) => {
        await issueDevice(tx, app.services, subscription);
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
    const queued = async () => (await app.services.db.select().from(outboxMessages)).length;
    const before = await queued();
    for (const customerEmail of [null, "not an address"]) {
      const subscription = await addTestSubscription(app.services.db, { customerEmail, deviceLimit: 1 });
      const issued = await issueTestDevice(app.services, subscription);
      expect(await queueConfigEmail(app.services.db, app.services, issued, subscription)).toBeNull();
    }
    expect(await queued()).toBe(before);
  });
});

describe("secrets in the log", () => {
  it("never writes a private key, preshared key or token to the app log", async () => {
    const { nodeToken } = await addServerViaAdmin(app, "ng-log-check");
    const subscription = await addTestSubscription(app.services.db, {
      deviceLimit: 1,
      customerEmail: "log@example.com",
    });
    const issued = await issueTestDevice(app.services, subscription);
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

    const row = await deviceRow(app.services.db, issued.device.id);
    const secrets = [
      app.services.sealer.unseal(row.privateKeySealed),
      app.services.sealer.unseal(row.presharedKeySealed),
      issued.downloadToken,
      nodeToken,
      await adminToken(app),
    ];
    expect(app.log.lines.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(app.log.text).not.toContain(secret);
  });
});
