// Who is waiting at Configuration Pending (decision 121): a paid checkout younger than a minute is
// fulfilment in flight, and a pass's own checkout from /account joins the pass it renews. The
// staff alert, the /admin dashboard, /metrics and the serve job read the one rule; time is injected.
import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { checkoutSessions, staffAlerts, subscriptions } from "#server/db/schema/index.ts";
import {
  awaitingConfiguration,
  FULFILMENT_GRACE_MS,
  serveWaitingBuyers,
} from "#server/domain/billing/waiting-buyers.ts";
import { checkStaffAlerts } from "#server/domain/ops/alerts.ts";
import { dashboardFigures } from "#server/domain/ops/dashboard.ts";
import { accountRequest, buy, signedInCustomer } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { parsePrometheusText, sampleValue } from "../../support/prometheus.ts";
import { payWith } from "../../support/purchase.ts";
import { addTestSubscription } from "../../support/vpn.ts";

const ADMIN = "ops@naijalink.example";
const later = (start: Date, ms: number) => new Date(start.getTime() + ms);

describe.each(databaseKinds)("buyers waiting at Configuration Pending on %s", (kind) => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  /** What each reader of the rule says at `now`: the alert (opened or not), the dashboard, the gauge. */
  async function readings(app: TestApp, now: Date) {
    await checkStaffAlerts(app.services, now);
    const alerts = await app.services.db
      .select()
      .from(staffAlerts)
      .where(eq(staffAlerts.key, "configuration-pending"));
    const metrics = parsePrometheusText(await app.services.metrics.render(app.services.db, now));
    return {
      alertOpen: alerts.some((alert) => alert.resolvedAt === null),
      dashboard: (await dashboardFigures(app.services.db, now)).configurationPending,
      gauge: sampleValue(metrics, "naijalink_configuration_pending"),
    };
  }

  it("never alerts for a checkout paid seconds ago, and does once it has waited two minutes", async () => {
    app = await createTestApp({ kind, env: { STAFF_ADMINS: ADMIN } });
    const { db } = app.services;
    const paidAt = new Date();
    // A payment recorded a moment before its fulfilment commits, and a subscription still
    // without slot 1: both fulfilment in flight at first.
    const sessionId = `cs_test_paid_${crypto.randomUUID()}`;
    await db.insert(checkoutSessions).values({
      id: sessionId,
      provider: "test",
      planId: "unlock",
      customerEmail: "in.flight@example.com",
      amountCents: 999,
      status: "paid",
      paidAt,
    });
    const withoutDevice = await addTestSubscription(db, { createdAt: paidAt });

    for (const seconds of [0, 5, 59]) {
      const now = later(paidAt, seconds * 1000);
      expect(await readings(app, now), `${seconds} s after payment`).toEqual({
        alertOpen: false,
        dashboard: 0,
        gauge: 0,
      });
      expect(await serveWaitingBuyers(app.services, now)).toEqual({ configsIssued: 0 });
    }
    expect(app.log.text).not.toContain("paid buyers are waiting at Configuration Pending");

    const twoMinutes = later(paidAt, 2 * 60_000);
    expect(await readings(app, twoMinutes)).toEqual({ alertOpen: true, dashboard: 2, gauge: 2 });
    expect(app.log.text).toContain("staff alert: paid buyers are waiting at Configuration Pending");
    const waiting = await awaitingConfiguration(db, twoMinutes);
    expect(waiting.map((buyer) => buyer.subscriptionId ?? buyer.checkoutSessionId).sort()).toEqual(
      [withoutDevice.id, sessionId].sort(),
    );
    expect(FULFILMENT_GRACE_MS).toBe(60_000);
  });

  it("never counts a pass extension's payment as a buyer waiting, and the serve job has nothing to do", async () => {
    app = await createTestApp({ kind, env: { STAFF_ADMINS: ADMIN } });
    const { db } = app.services;
    await buy(app, "unlock", "pass.holder@example.com");
    const cookie = await signedInCustomer(app, "pass.holder@example.com");
    const [pass] = await db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.customerEmail, "pass.holder@example.com"));
    const started = await accountRequest(
      app,
      "subscriptions/pass-checkout",
      { subscriptionId: pass!.id, planId: "unlock" },
      cookie,
    );
    expect(started.status).toBe(200);
    const sessionId = new URL(((await started.json()) as { url: string }).url).pathname.split("/").pop()!;
    expect((await payWith(app, sessionId, "4242 4242 4242 4242")).status).toBe(302);
    const [extended] = await db.select().from(subscriptions).where(eq(subscriptions.id, pass!.id));
    expect(extended!.expiresAt.getTime() - pass!.expiresAt.getTime()).toBe(7 * 86_400_000);

    const now = later(new Date(), 2 * 60_000);
    expect(await awaitingConfiguration(db, now)).toEqual([]);
    expect(await readings(app, now)).toEqual({ alertOpen: false, dashboard: 0, gauge: 0 });
    // Run after run: nothing to serve, and the pass is extended once.
    for (const run of [0, 30_000, 60_000])
      expect(await serveWaitingBuyers(app.services, later(now, run))).toEqual({ configsIssued: 0 });
    const [after] = await db.select().from(subscriptions).where(eq(subscriptions.id, pass!.id));
    expect(after!.expiresAt).toEqual(extended!.expiresAt);
    expect(await db.select().from(subscriptions)).toHaveLength(1);
    expect(app.log.text).not.toContain("Configuration Pending");
  });
});
