// Sales never stop silently (issue 23, decision 094): a demo store keeps selling on its
// development server while its first real node is being set up; whenever no server can take a
// device, every admin page says so, /metrics says so and staff get one e-mail per outage.
import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { outboxMessages } from "#server/db/schema/index.ts";
import { checkStaffAlerts } from "#server/domain/ops/alerts.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { queuedEmailsWhere } from "../../support/outbox.ts";
import { newPlace, startApp } from "../../support/place.ts";
import { parsePrometheusText, sampleValue } from "../../support/prometheus.ts";
import { addTestSubscription, issueTestDevice } from "../../support/vpn.ts";
import { adminCommand, addServerViaAdmin } from "../../support/vpn-admin.ts";
import { createAccount, OTHER_STAFF_EMAIL, STAFF_EMAIL } from "../../support/staff.ts";

const METRICS_TOKEN = crypto.randomBytes(32).toString("hex");
const LIVE_SETTINGS = {
  NAIJALINK_MODE: "live",
  PUBLIC_URL: "https://shop.example",
  STRIPE_SECRET_KEY: "sk_test_operator",
  STRIPE_WEBHOOK_SECRET: "whsec_operator",
  SMTP_URL: "smtp://127.0.0.1:2525",
  STAFF_ADMINS: "owner@shop.example",
};
const BANNER = "Sales are stopped: no VPN server can take a device — why and how to fix";

const visibleText = (html: string) =>
  html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, " ");

describe.each(databaseKinds)("sales never stop silently on %s", (kind) => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const start = async () => {
    app = await createTestApp({ kind, env: { METRICS_TOKEN } });
    return app;
  };
  const checkout = (app: TestApp) =>
    app.request("/api/create-checkout", { json: { planId: "unlock", customerEmail: "buyer@example.com" } });
  const servers = async (app: TestApp) => {
    const response = await adminCommand(app, { command: "list-servers" });
    const { servers } = (await response.json()) as {
      servers: Array<{ name: string; state: string; takesDevices: boolean }>;
    };
    return Object.fromEntries(servers.map((server) => [server.name, [server.state, server.takesDevices]]));
  };
  const salesStoppedGauge = async (app: TestApp) => {
    const response = await app.request("/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    return sampleValue(parsePrometheusText(await response.text()), "naijalink_sales_stopped");
  };
  const page = async (app: TestApp, path: string, cookie: string) => {
    const response = await app.request(path, { headers: { cookie } });
    expect(response.status, path).toBe(200);
    return visibleText(await response.text());
  };
  const alertEmails = (app: TestApp) =>
    queuedEmailsWhere(app.services, eq(outboxMessages.kind, "staff-alert"));

  it("adding a server whose node has not registered keeps a demo store selling on the development server", async () => {
    const app = await start();
    await addServerViaAdmin(app, "ng-lagos-1");
    expect(await servers(app)).toEqual({
      "ng-lagos-dev": ["placeholder", true],
      "ng-lagos-1": ["awaiting-node", false],
    });
    const response = await checkout(app);
    expect(response.status).toBe(200);
    expect(await salesStoppedGauge(app)).toBe(0);
    const { cookie } = await createAccount(app, STAFF_EMAIL);
    const servesPage = await page(app, "/admin/servers", cookie);
    expect(servesPage).not.toContain(BANNER);
    expect(servesPage).toContain("awaiting its node");
    expect(servesPage).toContain("development placeholder");
  });

  it("once the real node registers, the placeholder retires; with nothing left to take a device, the banner, the gauge and one alert say so", async () => {
    const app = await start();
    const { nodeToken } = await addServerViaAdmin(app, "ng-lagos-1");
    const registered = await app.request("/api/nodes/status", {
      json: { publicKey: generateKeyPair().publicKey, appliedVersion: null, peers: [] },
      headers: { authorization: `Bearer ${nodeToken}` },
    });
    expect(registered.status).toBe(200);
    expect(await servers(app)).toEqual({
      "ng-lagos-dev": ["retired", false],
      "ng-lagos-1": ["online", true],
    });
    expect((await checkout(app)).status).toBe(200);

    expect((await adminCommand(app, { command: "drain-server", server: "ng-lagos-1" })).status).toBe(200);
    // Draining the real one does not bring the placeholder back: its configs can never connect.
    expect(await servers(app)).toEqual({
      "ng-lagos-dev": ["retired", false],
      "ng-lagos-1": ["draining", false],
    });
    expect((await checkout(app)).status).toBe(503);
    expect(await salesStoppedGauge(app)).toBe(1);

    const admin = await createAccount(app, STAFF_EMAIL);
    for (const path of ["/admin", "/admin/orders", "/admin/blog", "/admin/audit"])
      expect(await page(app, path, admin.cookie), path).toContain(BANNER);
    const explanation = await page(app, "/admin/servers", admin.cookie);
    expect(explanation).toContain("Why sales are stopped");
    expect(explanation).toContain("ng-lagos-1 : draining: it takes no new devices");
    expect(explanation).toContain("npm run vpn -- enable-server");
    // Editors cannot fix it: their blog pages stay as they are.
    const editor = await createAccount(app, OTHER_STAFF_EMAIL);
    expect(await page(app, "/admin/blog", editor.cookie)).not.toContain(BANNER);

    const now = new Date();
    await checkStaffAlerts(app.services, now);
    await checkStaffAlerts(app.services, new Date(now.getTime() + 60_000));
    const stopped = (await alertEmails(app)).filter((email) => email.subject.startsWith("Sales are stopped"));
    expect(stopped.map((email) => email.to)).toEqual(app.config.STAFF_ADMINS);
    expect(stopped[0]!.text).toContain("ng-lagos-1");
    expect(app.log.text).toContain("staff alert: sales are stopped: no VPN server can take a device");

    // Selling again resolves the outage: the gauge drops, the banner goes, a later stop is a new e-mail.
    expect((await adminCommand(app, { command: "enable-server", server: "ng-lagos-1" })).status).toBe(200);
    expect(await salesStoppedGauge(app)).toBe(0);
    expect(await page(app, "/admin", admin.cookie)).not.toContain(BANNER);
    expect(await checkStaffAlerts(app.services, new Date(now.getTime() + 120_000))).toMatchObject({
      alertsResolved: 1,
    });
  });

  it("a live start retires the development server: no new devices, said in the log and on the servers list, and it cannot be enabled again", async () => {
    const place = await newPlace(kind, "naijalink_live_start");
    try {
      // Demo first, with a rehearsal sale on the placeholder; then the same store restarted live.
      const demo = await startApp(place);
      try {
        expect((await checkout(demo)).status).toBe(200);
        await issueTestDevice(demo.services, await addTestSubscription(demo.services.db, { deviceLimit: 1 }));
      } finally {
        await demo.close();
      }
      const live = await startApp(place, LIVE_SETTINGS);
      try {
        expect(live.log.text).toContain(
          "development VPN server ng-lagos-dev retired: live mode sells none of its configs; its 1 rehearsal device(s) can never connect: npm run vpn -- move-devices ng-lagos-dev --to SERVER (or revoke-devices ng-lagos-dev), then remove-server ng-lagos-dev",
        );
        expect(await servers(live)).toEqual({ "ng-lagos-dev": ["retired", false] });
        const enable = await adminCommand(live, { command: "enable-server", server: "ng-lagos-dev" });
        expect(enable.status).toBe(409);
        expect(await enable.json()).toMatchObject({ message: expect.stringContaining("placeholder") });
        expect(await servers(live)).toEqual({ "ng-lagos-dev": ["retired", false] });
      } finally {
        await live.close();
      }
      // Every live start reminds the operator until it is gone.
      const again = await startApp(place, LIVE_SETTINGS);
      await again.close();
      expect(again.log.text).toContain("development VPN server ng-lagos-dev still present");
    } finally {
      await place.remove();
    }
  });
});
