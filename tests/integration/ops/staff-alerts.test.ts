// Staff alert e-mails (decision 083): each outage — a silent node, a stuck outbox, buyers waiting
// at Configuration Pending — e-mails every admin once, however often the check runs and however
// many processes run it; after recovery the next outage e-mails again. Time is injected.
import crypto from "node:crypto";
import { eq, like } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  checkoutSessions,
  outboxMessages,
  staffAlerts,
  subscriptions,
  vpnServers,
  type VpnServer,
} from "#server/db/schema/index.ts";
import { checkStaffAlerts } from "#server/domain/ops/alerts.ts";
import { enqueueEmail } from "#server/domain/mail/outbox.ts";
import type { OutgoingEmail } from "#server/domain/mail/transport.ts";
import { recordNodeStatus } from "#server/domain/vpn/nodes.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { contactEmail, queuedEmailsWhere } from "../../support/outbox.ts";
import {
  addTestSubscription,
  addTestVpnServer,
  captureTransport,
  issueTestDevice,
} from "../../support/vpn.ts";

const ADMINS = ["ops-lead@naijalink.example", "founder@naijalink.example"];
const MINUTE = 60_000;
const at = (start: Date, minutes: number) => new Date(start.getTime() + minutes * MINUTE);

describe.each(databaseKinds)("staff alerts on %s", (kind) => {
  let app: TestApp;
  const transport = captureTransport();

  /** The alert e-mails queued so far, oldest first, as the worker will send them. */
  function alertEmails(): Promise<OutgoingEmail[]> {
    return queuedEmailsWhere(app.services, eq(outboxMessages.kind, "staff-alert"));
  }

  /**
   * The alert about `subjectPart` sent to the first admin. One check queues every alert and every
   * admin's copy in one transaction, so the outbox holds them in no particular order.
   */
  async function firstAdminsAlert(subjectPart: string): Promise<OutgoingEmail | undefined> {
    const emails = (await alertEmails()).filter((email) => email.subject.includes(subjectPart));
    return emails.find((email) => email.to === ADMINS[0]);
  }

  /** The outages so far: one e-mail per admin each. */
  async function outages(subjectPart: string): Promise<number> {
    const sent = (await alertEmails()).filter((email) => email.subject.includes(subjectPart));
    for (const admin of ADMINS)
      expect(sent.filter((email) => email.to === admin)).toHaveLength(sent.length / ADMINS.length);
    return sent.length / ADMINS.length;
  }

  beforeAll(async () => {
    app = await createTestApp({
      kind,
      transport,
      env: { STAFF_ADMINS: ADMINS.join(","), STAFF_EDITORS: "writer@naijalink.example" },
    });
  });
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(async () => {
    const { db } = app.services;
    await db.delete(outboxMessages);
    await db.delete(staffAlerts);
  });

  describe("the exit-abroad alert", () => {
    let server: VpnServer;
    const report = (exitAddresses: string[], now: Date) =>
      recordNodeStatus(
        app.services.db,
        server,
        { publicKey: server.publicKey!, appliedVersion: null, exitAddresses, peers: [] },
        now,
      );
    const exitAlerts = () =>
      app.services.db
        .select()
        .from(staffAlerts)
        .where(like(staffAlerts.key, `exit-abroad:${server.id}:%`));

    beforeAll(async () => {
      server = await addTestVpnServer(app.services.db, { name: "ng-exit-check", octet: 74 });
    });
    afterAll(async () => {
      await app.services.db.delete(vpnServers).where(eq(vpnServers.id, server.id));
    });

    it("e-mails once while an exit address appears abroad, not for Nigerian or unknown ones, and is resolved by a Nigerian exit", async () => {
      const start = new Date();
      // Nigerian and documentation-range (unknown) addresses raise nothing.
      await report(["197.210.64.1", "192.0.2.1"], start);
      await checkStaffAlerts(app.services, start);
      expect(await exitAlerts()).toEqual([]);

      // Two reports of an address the database places in the US: one outage, one e-mail per admin.
      for (const minutes of [1, 2]) {
        await report(["197.210.64.1", "8.8.8.8"], at(start, minutes));
        await checkStaffAlerts(app.services, at(start, minutes));
      }
      expect((await exitAlerts()).map((alert) => [alert.key, alert.resolvedAt])).toEqual([
        [`exit-abroad:${server.id}:8.8.8.8`, null],
      ]);
      expect(await outages("ng-exit-check")).toBe(1);
      const email = await firstAdminsAlert("ng-exit-check");
      expect(email?.text).toContain("8.8.8.8");
      expect(email?.text).toContain("US");

      // The node reports a Nigerian exit: resolved, and no new e-mail.
      await report(["197.210.64.1"], at(start, 3));
      expect(await checkStaffAlerts(app.services, at(start, 3))).toMatchObject({ alertsResolved: 1 });
      expect(await outages("ng-exit-check")).toBe(1);
    });
  });

  describe("the node-down alert", () => {
    let server: VpnServer;
    const report = (now: Date) =>
      recordNodeStatus(
        app.services.db,
        server,
        { publicKey: server.publicKey!, appliedVersion: null, peers: [] },
        now,
      );

    beforeAll(async () => {
      server = await addTestVpnServer(app.services.db, { name: "ng-abuja-3", octet: 71 });
    });
    afterAll(async () => {
      await app.services.db.delete(vpnServers).where(eq(vpnServers.id, server.id));
    });

    it("is e-mailed to every admin once per outage, and again after the node came back and went silent", async () => {
      const start = new Date(Date.now() - 3_600_000);
      await report(start);
      await checkStaffAlerts(app.services, at(start, 1));
      await checkStaffAlerts(app.services, at(start, 1.9));
      expect(await outages("ng-abuja-3")).toBe(0);

      await checkStaffAlerts(app.services, at(start, 2));
      expect(await outages("ng-abuja-3")).toBe(1);
      for (const minutes of [2.5, 3, 10, 30]) await checkStaffAlerts(app.services, at(start, minutes));
      expect(await outages("ng-abuja-3"), "one e-mail however long it lasts").toBe(1);

      await report(at(start, 31));
      expect(await checkStaffAlerts(app.services, at(start, 31.5))).toEqual({
        alertsOpened: 0,
        alertsResolved: 1,
      });
      await checkStaffAlerts(app.services, at(start, 32));
      expect(await outages("ng-abuja-3")).toBe(1);

      await checkStaffAlerts(app.services, at(start, 33.5));
      expect(await outages("ng-abuja-3"), "a new outage after recovery").toBe(2);

      // What the mail worker then sends: two e-mails to each admin, one per outage.
      transport.sent.length = 0;
      await app.services.mail.drain();
      const sent = transport.sent.filter((email) => email.subject.startsWith("VPN node ng-abuja-3"));
      expect(sent.map((email) => email.to).sort()).toEqual([...ADMINS, ...ADMINS].sort());
    });

    it("says which node and since when, with no link, key or token", async () => {
      const start = new Date(Date.now() - 3_600_000);
      await report(start);
      await checkStaffAlerts(app.services, at(start, 7.5));
      const email = await firstAdminsAlert("VPN node ng-abuja-3");
      expect(email!.subject).toBe("VPN node ng-abuja-3 has not reported for 7 minutes");
      expect(email!.text).toContain("VPN node ng-abuja-3 has stopped reporting");
      expect(email!.text).toContain(`Last report: ${start.toISOString()}`);
      expect(email!.text).toContain("journalctl -u naijalink-agent");
      expect(email!.text).toContain("Sent by the NaijaLink site to its staff.");
      expect(email!.html).not.toMatch(/href=/);
      expect(email!.text).not.toContain(server.publicKey!);
      expect(app.log.text).toContain("staff alert: VPN node ng-abuja-3 has stopped reporting");
    });

    it("is one e-mail when several app processes check at the same moment", async () => {
      const start = new Date(Date.now() - 3_600_000);
      await report(start);
      await Promise.all(Array.from({ length: 6 }, () => checkStaffAlerts(app.services, at(start, 5))));
      expect(await outages("ng-abuja-3")).toBe(1);
      expect(await app.services.db.select().from(staffAlerts)).toHaveLength(1);
    });

    it("leaves alone a server whose node never reported (being set up, or the demo's placeholder)", async () => {
      await app.services.db.update(vpnServers).set({ lastSeenAt: null }).where(eq(vpnServers.id, server.id));
      await checkStaffAlerts(app.services, at(new Date(), 60));
      expect(await alertEmails()).toEqual([]);
    });

    it("leaves alone a server out of service with no peers to carry, but not a draining one still carrying buyers", async () => {
      const start = new Date(Date.now() - 3_600_000);
      await report(start);
      await app.services.db
        .update(vpnServers)
        .set({ status: "draining" })
        .where(eq(vpnServers.id, server.id));
      await checkStaffAlerts(app.services, at(start, 5));
      expect(await outages("ng-abuja-3")).toBe(0);

      await app.services.db.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.id, server.id));
      const buyer = await addTestSubscription(app.services.db);
      await issueTestDevice(app.services, buyer); // lands on ng-abuja-3, the only real server
      // Disabled, its node is told to carry no peer: nobody is left waiting on it.
      await app.services.db
        .update(vpnServers)
        .set({ status: "disabled" })
        .where(eq(vpnServers.id, server.id));
      await checkStaffAlerts(app.services, at(start, 6));
      expect(await outages("ng-abuja-3")).toBe(0);
      await app.services.db
        .update(vpnServers)
        .set({ status: "draining" })
        .where(eq(vpnServers.id, server.id));
      await checkStaffAlerts(app.services, at(start, 7));
      expect(await outages("ng-abuja-3")).toBe(1);
      await app.services.db.update(vpnServers).set({ status: "active" }).where(eq(vpnServers.id, server.id));
      await app.services.db.delete(subscriptions).where(eq(subscriptions.id, buyer.id));
    });
  });

  describe("the stuck-outbox alert", () => {
    const queueContactEmail = () => enqueueEmail(app.services.db, app.services.sealer, contactEmail());
    const queuedAt = async (id: string) =>
      (await app.services.db.select().from(outboxMessages).where(eq(outboxMessages.id, id)))[0]!.createdAt;

    it("goes once when the oldest waiting e-mail passes 10 minutes, and again for the next outage", async () => {
      const first = await queueContactEmail();
      const queued = await queuedAt(first);
      await checkStaffAlerts(app.services, at(queued, 9.9));
      expect(await outages("E-mail is stuck")).toBe(0);
      await checkStaffAlerts(app.services, at(queued, 10));
      expect(await outages("E-mail is stuck")).toBe(1);
      // The alert's own e-mails wait in the same outbox, and its log line goes out at once.
      expect(app.log.text).toContain("staff alert: e-mail is not going out");
      await checkStaffAlerts(app.services, at(queued, 25));
      expect(await outages("E-mail is stuck")).toBe(1);

      // Sending works again: everything waiting goes out, and the outage is over.
      await app.services.db.update(outboxMessages).set({ status: "sent", sentAt: at(queued, 26) });
      await checkStaffAlerts(app.services, at(queued, 26));
      expect(await app.services.db.select().from(staffAlerts)).toMatchObject([{ key: "outbox-stuck" }]);
      expect((await app.services.db.select().from(staffAlerts))[0]!.resolvedAt).toEqual(at(queued, 26));

      const second = await queueContactEmail();
      await checkStaffAlerts(app.services, at(await queuedAt(second), 11));
      expect(await outages("E-mail is stuck"), "a new outage after recovery").toBe(2);
      const latest = (await alertEmails()).at(-1)!;
      expect(latest.subject).toMatch(/^E-mail is stuck: \d+ waiting, the oldest for 11 minutes$/);
      expect(latest.text).toContain("This e-mail went through the same outbox");
    });
  });

  describe("the Configuration Pending alert", () => {
    // Read past the minute's grace of fulfilment in flight (decision 121).
    const pastGrace = () => at(new Date(), 2);

    it("goes once while paid buyers wait for a config, and again when a buyer waits after it cleared", async () => {
      const { db } = app.services;
      const waiting = await addTestSubscription(db, { customerEmail: "waiting.buyer@example.com" });
      await checkStaffAlerts(app.services, pastGrace());
      await checkStaffAlerts(app.services, pastGrace());
      const alsoWaiting = await addTestSubscription(db); // during the same outage: no second e-mail
      await checkStaffAlerts(app.services, pastGrace());
      expect(await outages("waiting for a config")).toBe(1);
      const email = await firstAdminsAlert("waiting for a config");
      expect(email!.subject).toBe("1 paid buyer is waiting for a config");
      expect(email!.text).toContain(`Subscription ${waiting.id}: pro-monthly, paid`);
      expect(email!.text, "no buyer's address in a staff alert").not.toContain("waiting.buyer@example.com");

      // A VPN server had room again and both buyers got their config.
      for (const subscription of [waiting, alsoWaiting]) await issueTestDevice(app.services, subscription);
      expect(await checkStaffAlerts(app.services, pastGrace())).toMatchObject({ alertsResolved: 1 });

      await addTestSubscription(db);
      await checkStaffAlerts(app.services, pastGrace());
      expect(await outages("waiting for a config"), "a new outage after recovery").toBe(2);
    });

    it("names each waiting buyer's subscription in its log line and counts, never names, the checkouts before one", async () => {
      const { db } = app.services;
      const waiting = await addTestSubscription(db);
      const sessionId = `cs_test_paid_${crypto.randomUUID()}`;
      await db.insert(checkoutSessions).values({
        id: sessionId,
        provider: "test",
        planId: "unlock",
        amountCents: 999,
        status: "paid",
        paidAt: at(new Date(), -2),
      });
      await checkStaffAlerts(app.services, pastGrace());
      const logged = app.log
        .entries()
        .filter((entry) => entry.alert === "configuration-pending")
        .at(-1);
      // Earlier tests may have left buyers waiting: only this test's two are checked.
      const { subscriptionIds, paidCheckoutsWithoutSubscription } = logged as {
        subscriptionIds: string[];
        paidCheckoutsWithoutSubscription: number;
      };
      expect(subscriptionIds).toContain(waiting.id);
      expect(subscriptionIds).not.toContain(null);
      expect(paidCheckoutsWithoutSubscription).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(logged), "a checkout session id opens a config: never logged").not.toContain(
        sessionId,
      );
      const email = await firstAdminsAlert("waiting for a config");
      expect(email!.text).toContain(`Subscription ${waiting.id}: pro-monthly`);
      expect(email!.text).toContain(`No subscription recorded yet: unlock, paid`);
      await issueTestDevice(app.services, waiting);
      await db.delete(checkoutSessions).where(eq(checkoutSessions.id, sessionId));
    });
  });
});
