// The staff dashboard (issue 15, decision 076): its figures per window as of an injected `now`,
// the API that answers them, and the page.
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPlan } from "#core/plans.ts";
import {
  checkoutSessions,
  devices,
  ledgerEntries,
  outboxMessages,
  subscriptions,
  vpnServers,
} from "#server/db/schema/index.ts";
import { cancelAtPeriodEnd, resumeSubscription } from "#server/domain/billing/self-service.ts";
import { dashboardFigures, type DashboardFigures } from "#server/domain/ops/dashboard.ts";
import { NODE_SEEN_WINDOW_MS } from "#server/domain/vpn/nodes.ts";
import { buy } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { payWith, startCheckout, verify } from "../../support/purchase.ts";
import { createAccount, queuedEmails, STAFF_EMAIL } from "../../support/staff.ts";

const DAY_MS = 86_400_000;
const cents = (planId: string) => findPlan(planId)!.priceCents;

describe.each(databaseKinds)("the staff dashboard, on %s", (kind) => {
  let app: TestApp;
  let adminCookie: string;

  beforeAll(async () => {
    app = await createTestApp({ kind });
    adminCookie = (await createAccount(app, STAFF_EMAIL)).cookie;
  });
  afterAll(async () => {
    await app?.close();
  });

  async function subscriptionOf(sessionId: string) {
    const [row] = await app.services.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    return row!;
  }

  /** Moves an order, its subscription and its devices `days` into the past. */
  async function backdate(sessionId: string, days: number) {
    const shift = sql.raw(`interval '${days} days'`);
    const { id } = await subscriptionOf(sessionId);
    await app.services.db
      .update(checkoutSessions)
      .set({
        createdAt: sql`${checkoutSessions.createdAt} - ${shift}`,
        paidAt: sql`${checkoutSessions.paidAt} - ${shift}`,
      })
      .where(eq(checkoutSessions.id, sessionId));
    await app.services.db
      .update(subscriptions)
      .set({ createdAt: sql`${subscriptions.createdAt} - ${shift}` })
      .where(eq(subscriptions.id, id));
    await app.services.db
      .update(devices)
      .set({ createdAt: sql`${devices.createdAt} - ${shift}` })
      .where(eq(devices.subscriptionId, id));
    // The revenue figures read the ledger (decision 120): its charge moves with the order.
    await app.services.db
      .update(ledgerEntries)
      .set({ occurredAt: sql`${ledgerEntries.occurredAt} - ${shift}` })
      .where(eq(ledgerEntries.checkoutSessionId, sessionId));
  }

  const windowDelta = (
    after: DashboardFigures,
    before: DashboardFigures,
    figure: Exclude<keyof DashboardFigures["windows"]["today"], "revenueByPlan">,
  ) => ({
    today: after.windows.today[figure] - before.windows.today[figure],
    last7Days: after.windows.last7Days[figure] - before.windows.last7Days[figure],
    last30Days: after.windows.last30Days[figure] - before.windows.last30Days[figure],
  });

  it("counts paid orders, revenue by plan, new subscriptions and devices issued in today, 7 days and 30 days", async () => {
    const now = new Date();
    const before = await dashboardFigures(app.services.db, now);
    await buy(app, "pro-monthly", "window-today@example.com");
    const threeDaysAgo = await buy(app, "unlock", "window-three-days@example.com");
    const tenDaysAgo = await buy(app, "basic-monthly", "window-ten-days@example.com");
    await backdate(threeDaysAgo, 3);
    await backdate(tenDaysAgo, 10);
    const after = await dashboardFigures(app.services.db, new Date(now.getTime() + 60_000));

    expect(windowDelta(after, before, "paidOrders")).toEqual({ today: 1, last7Days: 2, last30Days: 3 });
    expect(windowDelta(after, before, "newSubscriptions")).toEqual({ today: 1, last7Days: 2, last30Days: 3 });
    expect(windowDelta(after, before, "devicesIssued")).toEqual({ today: 1, last7Days: 2, last30Days: 3 });
    expect(windowDelta(after, before, "revenueCents")).toEqual({
      today: cents("pro-monthly"),
      last7Days: cents("pro-monthly") + cents("unlock"),
      last30Days: cents("pro-monthly") + cents("unlock") + cents("basic-monthly"),
    });
    const planRevenue = (figures: DashboardFigures, planId: string) =>
      figures.windows.last30Days.revenueByPlan.find((plan) => plan.planId === planId)?.revenueCents ?? 0;
    expect(planRevenue(after, "basic-monthly") - planRevenue(before, "basic-monthly")).toBe(
      cents("basic-monthly"),
    );
    expect(after.windows.last30Days.revenueByPlan.find((plan) => plan.planId === "unlock")?.planName).toBe(
      "Unlock Pass",
    );

    const dayOf = (offset: number) => new Date(now.getTime() - offset * DAY_MS).toISOString().slice(0, 10);
    const ordersOn = (figures: DashboardFigures, day: string) =>
      figures.paidOrdersByDay.find((entry) => entry.day === day)?.orders ?? 0;
    expect(after.paidOrdersByDay).toHaveLength(30);
    expect(after.paidOrdersByDay.at(-1)!.day).toBe(dayOf(0));
    for (const offset of [0, 3, 10])
      expect(ordersOn(after, dayOf(offset)) - ordersOn(before, dayOf(offset))).toBe(1);

    // As of a day earlier, today's order had not happened; 31 days on, all three fell out of the windows.
    const dayEarlier = await dashboardFigures(app.services.db, new Date(now.getTime() - DAY_MS));
    expect(after.windows.last30Days.paidOrders - dayEarlier.windows.last30Days.paidOrders).toBe(1);
    expect(dayEarlier.windows.today.paidOrders).toBe(0);
    const monthLater = await dashboardFigures(app.services.db, new Date(now.getTime() + 41 * DAY_MS));
    expect(monthLater.windows.last30Days.paidOrders).toBe(0);
    expect(monthLater.paidOrdersByDay.every((day) => day.orders === 0)).toBe(true);
  });

  it("counts cancellations, refunds and active subscriptions", async () => {
    const now = new Date();
    const before = await dashboardFigures(app.services.db, now);
    const cancelled = await subscriptionOf(await buy(app, "pro-monthly", "cancels@example.com"));
    const refunded = await subscriptionOf(await buy(app, "pro-monthly", "refunded@example.com"));
    await cancelAtPeriodEnd(app.services, cancelled.id, now);
    await app.services.db
      .update(subscriptions)
      .set({ status: "refunded", updatedAt: now })
      .where(eq(subscriptions.id, refunded.id));
    const after = await dashboardFigures(app.services.db, new Date(now.getTime() + 60_000));
    expect(windowDelta(after, before, "cancellations")).toEqual({ today: 1, last7Days: 1, last30Days: 1 });
    expect(windowDelta(after, before, "refunds")).toEqual({ today: 1, last7Days: 1, last30Days: 1 });
    // The one cancelled at its period's end still works until then; the refunded one does not.
    expect(after.activeSubscriptions - before.activeSubscriptions).toBe(1);
  });

  it("counts revenue net of refunds, and shows the gross and what was refunded", async () => {
    const now = new Date();
    const before = await dashboardFigures(app.services.db, now);
    const recent = await subscriptionOf(await buy(app, "pro-yearly", "net-recent@example.com"));
    const older = await buy(app, "basic-monthly", "net-older@example.com");
    await backdate(older, 10);
    const refund = (subscriptionId: string) =>
      app.request("/api/admin/subscriptions/refund", {
        json: { subscriptionId, reason: "customer asked" },
        headers: { cookie: adminCookie },
      });
    expect((await refund(recent.id)).status).toBe(200);
    expect((await refund((await subscriptionOf(older)).id)).status).toBe(200);
    const after = await dashboardFigures(app.services.db, new Date(Date.now() + 60_000));

    const [yearly, monthly] = [cents("pro-yearly"), cents("basic-monthly")];
    expect(windowDelta(after, before, "grossRevenueCents")).toEqual({
      today: yearly,
      last7Days: yearly,
      last30Days: yearly + monthly,
    });
    // Refunds count when they are made: both today, the older order's too.
    const both = { today: yearly + monthly, last7Days: yearly + monthly, last30Days: yearly + monthly };
    expect(windowDelta(after, before, "refundedCents")).toEqual(both);
    expect(windowDelta(after, before, "disputedCents")).toEqual({ today: 0, last7Days: 0, last30Days: 0 });
    expect(windowDelta(after, before, "revenueCents")).toEqual({
      today: -monthly,
      last7Days: -monthly,
      last30Days: 0,
    });
    for (const window of ["today", "last7Days", "last30Days"] as const) {
      const figures = after.windows[window];
      expect(figures.revenueCents).toBe(
        figures.grossRevenueCents - figures.creditedCents - figures.refundedCents - figures.disputedCents,
      );
    }

    const html = await (await app.request("/admin", { headers: { cookie: adminCookie } })).text();
    for (const label of ["Gross revenue (USD)", "Refunded (USD)", "Disputed (USD)", "Net revenue (USD)"])
      expect(html, label).toContain(label);
  });

  it("counts a cancellation only while it stands: cancelled then resumed is not counted, and the customer hears of both", async () => {
    // Every step on the real clock, after all the earlier tests' changes: the deltas are this plan's.
    const figures = () => dashboardFigures(app.services.db, new Date());
    const before = await figures();
    const email = "resumes@example.com";
    const resumed = await subscriptionOf(await buy(app, "pro-monthly", email));
    await cancelAtPeriodEnd(app.services, resumed.id);
    expect(windowDelta(await figures(), before, "cancellations")).toEqual({
      today: 1,
      last7Days: 1,
      last30Days: 1,
    });
    await resumeSubscription(app.services, resumed.id);
    const none = { today: 0, last7Days: 0, last30Days: 0 };
    expect(windowDelta(await figures(), before, "cancellations")).toEqual(none);
    expect((await queuedEmails(app, email)).map((mail) => mail.kind)).toEqual(
      expect.arrayContaining(["subscription-cancelled", "subscription-resumed"]),
    );

    // Cancelled again, it counts once; ended at once after that, it is still the one cancellation.
    await cancelAtPeriodEnd(app.services, resumed.id);
    const cancelNow = await app.request("/api/admin/subscriptions/cancel", {
      json: { subscriptionId: resumed.id, reason: "asked to end it now", when: "now" },
      headers: { cookie: adminCookie },
    });
    expect(cancelNow.status).toBe(200);
    expect(windowDelta(await figures(), before, "cancellations")).toEqual({
      today: 1,
      last7Days: 1,
      last30Days: 1,
    });
  });

  it("dates a cancellation by when it happened, not by the subscription's last change", async () => {
    const now = new Date();
    const tenDaysAgo = new Date(now.getTime() - 10 * DAY_MS);
    const subscription = await subscriptionOf(await buy(app, "pro-monthly", "cancelled-earlier@example.com"));
    const before = await dashboardFigures(app.services.db, now);
    await cancelAtPeriodEnd(app.services, subscription.id, tenDaysAgo);
    // A later change to the same row (a staff extension, say) is not a second cancellation.
    await app.services.db
      .update(subscriptions)
      .set({ expiresAt: new Date(subscription.expiresAt.getTime() + DAY_MS), updatedAt: now })
      .where(eq(subscriptions.id, subscription.id));
    const after = await dashboardFigures(app.services.db, new Date(now.getTime() + 60_000));
    expect(windowDelta(after, before, "cancellations")).toEqual({ today: 0, last7Days: 0, last30Days: 1 });
  });

  it("counts a buyer waiting at Configuration Pending until a device is issued", async () => {
    // Read past the minute's grace of fulfilment in flight (decision 121).
    const pastGrace = () => new Date(Date.now() + 2 * 60_000);
    const before = await dashboardFigures(app.services.db, pastGrace());
    const { sessionId } = await startCheckout(app, "unlock", "pending@example.com");
    await app.services.db.update(vpnServers).set({ status: "draining" });
    try {
      expect((await payWith(app, sessionId, "4242 4242 4242 4242")).status).toBe(302);
      const waiting = await dashboardFigures(app.services.db, pastGrace());
      expect(waiting.configurationPending - before.configurationPending).toBe(1);
    } finally {
      await app.services.db.update(vpnServers).set({ status: "active" });
    }
    const answer = await verify(app, { sessionId });
    expect(((await answer.json()) as { downloadUrl: string | null }).downloadUrl).toBeTruthy();
    expect((await dashboardFigures(app.services.db, pastGrace())).configurationPending).toBe(
      before.configurationPending,
    );
  });

  it("tells VPN servers up (agent seen within the window) from down, and the outbox backlog", async () => {
    const now = new Date();
    const servers = await app.services.db.select({ id: vpnServers.id }).from(vpnServers);
    await app.services.db.update(vpnServers).set({ lastSeenAt: null });
    await app.services.db
      .update(vpnServers)
      .set({ lastSeenAt: new Date(now.getTime() - NODE_SEEN_WINDOW_MS + 5_000) })
      .where(eq(vpnServers.id, servers[0]!.id));
    expect((await dashboardFigures(app.services.db, now)).servers).toEqual({
      up: 1,
      down: servers.length - 1,
    });
    const later = new Date(now.getTime() + 10_000);
    expect((await dashboardFigures(app.services.db, later)).servers).toEqual({ up: 0, down: servers.length });

    const queued = await app.services.db.select({ id: outboxMessages.id }).from(outboxMessages).limit(3);
    expect(queued).toHaveLength(3);
    await app.services.db.update(outboxMessages).set({ status: "sent" });
    await app.services.db
      .update(outboxMessages)
      .set({ status: "pending" })
      .where(inArray(outboxMessages.id, [queued[0]!.id, queued[1]!.id]));
    await app.services.db
      .update(outboxMessages)
      .set({ status: "failed" })
      .where(eq(outboxMessages.id, queued[2]!.id));
    expect((await dashboardFigures(app.services.db, now)).outbox).toEqual({ pending: 2, failed: 1 });
  });

  it("answers the same figures at POST /api/admin/dashboard and refuses a body it does not take", async () => {
    const expected = await dashboardFigures(app.services.db);
    const response = await app.request("/api/admin/dashboard", {
      json: {},
      headers: { cookie: adminCookie },
    });
    expect(response.status).toBe(200);
    const figures = (await response.json()) as DashboardFigures;
    expect(figures.windows).toEqual(expected.windows);
    expect(figures.outbox).toEqual(expected.outbox);
    expect(figures.paidOrdersByDay).toEqual(expected.paidOrdersByDay);

    const refused = await app.request("/api/admin/dashboard", {
      json: { now: "2020-01-01" },
      headers: { cookie: adminCookie },
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });

  it("renders the dashboard page with the figures, the chart's table and the search box", async () => {
    const figures = await dashboardFigures(app.services.db);
    const response = await app.request("/admin", { headers: { cookie: adminCookie } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("Waiting at Configuration Pending");
    expect(html).toContain("VPN servers up / down");
    expect(html).toContain("Paid orders per day, last 30 days");
    expect(html).toContain("Show the figures as a table");
    expect(html).toMatch(/<form[^>]*action="\/admin\/orders"/);
    expect(html).toContain(`>${figures.windows.last30Days.paidOrders}<`);
  });
});
