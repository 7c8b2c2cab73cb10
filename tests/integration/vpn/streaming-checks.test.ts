// Streaming checks from every exit (issue 35, decision 133), on the control plane's side: the
// services staff list (their endpoint's validation and who may call it), what a node's report
// stores and what its answer lists, the staff alert once per failing (server, required service),
// the console's ✓/✗, and new devices placed on a server that passes. The agent's fetching is
// agent/streaming-checks.test.ts's, and the whole path through a real exit tests/tunnel/streaming-checks.test.ts's.
import { and, desc, eq, inArray, like, ne } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { StreamingResult } from "#agent/node-api.ts";
import {
  outboxMessages,
  staffAlerts,
  staffAuditLog,
  streamingChecks,
  streamingServices,
  vpnServers,
  type VpnServer,
} from "#server/db/schema/index.ts";
import { checkStaffAlerts } from "#server/domain/ops/alerts.ts";
import { listServerHealth } from "#server/domain/ops/server-health.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { addVpnServer } from "#server/domain/vpn/servers.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { databaseKinds } from "../../support/database.ts";
import { queuedEmailsWhere } from "../../support/outbox.ts";
import { createAccount, OTHER_STAFF_EMAIL, STAFF_EMAIL } from "../../support/staff.ts";
import { addTestSubscription, issueTestDevice, treatDevelopmentServerAsReal } from "../../support/vpn.ts";

const ADMINS = [STAFF_EMAIL];
const REASON = "buyers ask for it";

describe.each(databaseKinds)("streaming checks on %s", (kind) => {
  let app: TestApp;
  let admin: string;
  let editor: string;
  let customer: string;
  const servers: Array<{ server: VpnServer; nodeToken: string }> = [];

  beforeAll(async () => {
    app = await createTestApp({ kind, env: { STAFF_ADMINS: ADMINS.join(",") } });
    admin = (await createAccount(app, STAFF_EMAIL)).cookie;
    editor = (await createAccount(app, OTHER_STAFF_EMAIL)).cookie;
    await buy(app, "unlock", "streaming-buyer@example.com");
    customer = await signedInCustomer(app, "streaming-buyer@example.com");
    const { db } = app.services;
    await treatDevelopmentServerAsReal(db);
    await db.update(vpnServers).set({ status: "draining" });
    for (const [index, name] of ["ng-stream-a", "ng-stream-b"].entries())
      servers.push(
        await addVpnServer(db, {
          name,
          endpoint: `203.0.113.${20 + index}:51820`,
          publicKey: generateKeyPair().publicKey,
          ipv4Cidr: `10.${120 + index}.0.0/16`,
          ipv6Cidr: `fd${70 + index}::/64`,
          dns: "1.1.1.1",
        }),
      );
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(async () => {
    const { db } = app.services;
    await db.delete(streamingServices);
    await db.delete(staffAlerts);
    await db.delete(outboxMessages);
  });

  const post = async (path: string, body: unknown, cookie = admin) => {
    const response = await app.request(`/api/admin/streaming-services/${path}`, {
      json: body,
      headers: cookie ? { cookie } : {},
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const addService = async (fields: Record<string, unknown>) => {
    const added = await post("add", { reason: REASON, ...fields });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    return (added.body.service as { id: string }).id;
  };
  const listed = () => app.services.db.select().from(streamingServices);
  /** A node's report over HTTP, as its agent sends it; the services its answer lists. */
  const report = async (which: 0 | 1, results: StreamingResult[]) => {
    const { server, nodeToken } = servers[which]!;
    const response = await app.request("/api/nodes/status", {
      json: { publicKey: server.publicKey, peers: [], streamingChecks: results },
      headers: { authorization: `Bearer ${nodeToken}` },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const result = (id: string, ok: boolean, at = Date.now()): StreamingResult => ({
    id,
    ok,
    ...(ok ? { status: 200 } : { status: 403, reason: "answered 403, not 200" }),
    checkedAt: Math.floor(at / 1000),
  });
  const streamingAlerts = () =>
    app.services.db.select().from(staffAlerts).where(like(staffAlerts.key, "streaming-refused:%"));

  describe("the services staff list", () => {
    it("refuses bad input with a 4xx JSON error and changes nothing", async () => {
      const good = { name: "DStv", url: "https://www.dstv.example/ng/", reason: REASON };
      const bad: Array<[unknown, number]> = [
        [{ ...good, url: "ftp://tv.example.com/" }, 400],
        [{ ...good, url: "file:///etc/passwd" }, 400],
        [{ ...good, url: "not a url" }, 400],
        [{ ...good, url: "https://user:secret@tv.example.com/" }, 400],
        [{ ...good, url: `https://tv.example.com/${"a".repeat(2100)}` }, 400],
        [{ ...good, name: "" }, 400],
        [{ ...good, name: "x".repeat(61) }, 400],
        [{ ...good, expectStatus: 99 }, 400],
        [{ ...good, expectStatus: 600 }, 400],
        [{ ...good, expectStatus: "ok" }, 400],
        [{ ...good, bodyLacks: "x".repeat(201) }, 400],
        [{ ...good, required: "maybe" }, 400],
        [{ ...good, reason: "" }, 400],
        [{ ...good, extra: 1 }, 400],
        [[], 400],
      ];
      for (const [body, status] of bad) {
        const answer = await post("add", body);
        expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(status);
        expect(typeof answer.body.error).toBe("string");
        expect(typeof answer.body.message).toBe("string");
      }
      const removeBad = await post("remove", { serviceId: "not-an-id", reason: REASON });
      expect(removeBad.status).toBe(400);
      const removeMissing = await post("remove", {
        serviceId: "00000000-0000-4000-8000-000000000000",
        reason: REASON,
      });
      expect(removeMissing.status).toBe(404);
      expect(removeMissing.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      expect(await listed()).toEqual([]);
    });

    it("is staff admins' only: anonymous, a customer and an editor are refused", async () => {
      const body = { name: "DStv", url: "https://www.dstv.example/ng/", reason: REASON };
      for (const [who, cookie, status] of [
        ["anonymous", "", 401],
        ["a customer", customer, 403],
        ["an editor", editor, 403],
      ] as const) {
        const answer = await post("add", body, cookie);
        expect(answer.status, who).toBe(status);
        expect(typeof answer.body.message, who).toBe("string");
      }
      const id = await addService(body);
      for (const cookie of ["", editor]) {
        expect((await post("remove", { serviceId: id, reason: REASON }, cookie)).status).toBeGreaterThan(400);
      }
      // The page's form takes the same rule.
      const form = await app.request("/admin/servers.data", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "sec-fetch-site": "same-origin",
          cookie: editor,
        },
        body: new URLSearchParams({ intent: "remove-streaming-service", serviceId: id, reason: REASON }),
      });
      expect(form.status).toBe(403);
      expect(await listed()).toHaveLength(1);
    });

    it("adds and removes with the audit log, one name once, at most ten", async () => {
      const id = await addService({
        name: "Startimes",
        url: "https://startimes.example/",
        expectStatus: 200,
        bodyLacks: "not available in your region",
        required: false,
      });
      expect(await listed()).toMatchObject([
        {
          id,
          name: "Startimes",
          expectStatus: 200,
          bodyLacks: "not available in your region",
          required: false,
        },
      ]);
      expect(
        (await post("add", { name: "Startimes", url: "https://other.example/", reason: REASON })).status,
      ).toBe(409);
      for (let index = 2; index <= 10; index += 1)
        await addService({ name: `Service ${index}`, url: `https://s${index}.example/` });
      const eleventh = await post("add", { name: "Eleventh", url: "https://s11.example/", reason: REASON });
      expect(eleventh.status).toBe(409);
      expect(await listed()).toHaveLength(10);
      expect((await post("remove", { serviceId: id, reason: REASON })).status).toBe(200);
      const audit = await app.services.db
        .select()
        .from(staffAuditLog)
        .where(eq(staffAuditLog.targetId, id))
        .orderBy(desc(staffAuditLog.id));
      expect(audit.map((entry) => [entry.action, entry.reason])).toEqual([
        ["streaming-service.remove", REASON],
        ["streaming-service.add", REASON],
      ]);
      // Through the page's form (plain HTML: a select says whether it is required).
      const form = await app.request("/admin/servers.data", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "sec-fetch-site": "same-origin",
          cookie: admin,
        },
        body: new URLSearchParams({
          intent: "add-streaming-service",
          name: "Showmax successor",
          url: "https://watch.example/",
          expectStatus: "301",
          required: "no",
          reason: REASON,
        }),
      });
      expect(form.status).toBe(200);
      expect((await listed()).find((service) => service.name === "Showmax successor")).toMatchObject({
        expectStatus: 301,
        required: false,
      });
    });
  });

  describe("the node's report", () => {
    it("lists the services in its answer, stores each result, and drops one for a service removed", async () => {
      const dstv = await addService({ name: "DStv", url: "https://dstv.example/ng/", bodyContains: "Watch" });
      const first = await report(0, []);
      expect(first.status).toBe(200);
      expect(first.body.streamingChecks).toEqual([
        { id: dstv, url: "https://dstv.example/ng/", expectStatus: 200, bodyContains: "Watch" },
      ]);
      const gone = "00000000-0000-4000-8000-000000000000";
      const future = Date.now() + 3_600_000;
      expect((await report(0, [result(dstv, false, future), result(gone, true)])).status).toBe(200);
      const [row, ...others] = await app.services.db.select().from(streamingChecks);
      expect(others).toEqual([]);
      expect(row).toMatchObject({ serverId: servers[0]!.server.id, serviceId: dstv, ok: false, status: 403 });
      expect(row!.checkedAt.getTime(), "a node's clock ahead is not believed").toBeLessThanOrEqual(
        Date.now(),
      );
      const refused = await report(0, [{ ...result(dstv, true), reason: "x".repeat(301) }]);
      expect(refused.status).toBe(400);
      expect(typeof refused.body.message).toBe("string");
      expect((await app.services.db.select().from(streamingChecks))[0]!.ok).toBe(false);
    });

    it("shows ✓ and ✗ per server on /admin/servers, and alerts once per failing required service", async () => {
      const dstv = await addService({ name: "DStv", url: "https://dstv.example/ng/" });
      const optional = await addService({
        name: "Startimes",
        url: "https://startimes.example/",
        required: false,
      });
      const start = new Date(Date.now() - 600_000);
      // Two reports of the same failure, with alert checks after each.
      for (const minutes of [0, 1]) {
        await report(0, [result(dstv, false), result(optional, false)]);
        await report(1, [result(dstv, true), result(optional, true)]);
        await checkStaffAlerts(app.services, new Date(start.getTime() + minutes * 60_000));
      }
      const alerts = await streamingAlerts();
      expect(alerts.map((alert) => alert.key)).toEqual([
        `streaming-refused:${servers[0]!.server.id}:${dstv}`,
      ]);
      const emails = await queuedEmailsWhere(app.services, eq(outboxMessages.kind, "staff-alert"));
      const about = emails.filter((email) => email.subject.includes("DStv"));
      expect(about.map((email) => email.to)).toEqual(ADMINS);
      expect(about[0]!.subject).toContain("ng-stream-a");

      const health = await listServerHealth(app.services.db);
      const of = (name: string) => health.find((server) => server.name === name)!.streaming;
      expect(of("ng-stream-a").map((entry) => [entry.name, entry.ok])).toEqual([
        ["DStv", false],
        ["Startimes", false],
      ]);
      expect(of("ng-stream-b").map((entry) => entry.ok)).toEqual([true, true]);
      const page = await app.request("/admin/servers", { headers: { cookie: admin } });
      const html = await page.text();
      const marks = [...html.matchAll(/data-service="DStv" data-ok="(true|false)"[^>]*>\s*<[^>]+>([✓✗])/g)];
      expect(marks.map((mark) => [mark[1], mark[2]]).sort()).toEqual([
        ["false", "✗"],
        ["true", "✓"],
      ]);
      expect(html).toContain("answered 403, not 200");

      // It passes again: resolved; failing later is a new outage.
      await report(0, [result(dstv, true)]);
      expect(await checkStaffAlerts(app.services, new Date(start.getTime() + 2 * 60_000))).toMatchObject({
        alertsResolved: 1,
      });
      expect((await streamingAlerts()).filter((alert) => alert.resolvedAt === null)).toEqual([]);
      await report(0, [result(dstv, false)]);
      await checkStaffAlerts(app.services, new Date(start.getTime() + 3 * 60_000));
      expect(await streamingAlerts()).toHaveLength(2);
      // Removing the service resolves its outage.
      await post("remove", { serviceId: dstv, reason: REASON });
      await checkStaffAlerts(app.services, new Date(start.getTime() + 4 * 60_000));
      expect((await streamingAlerts()).filter((alert) => alert.resolvedAt === null)).toEqual([]);
    });
  });

  describe("placing new devices", () => {
    const ids = () => servers.map(({ server }) => server.id);
    const placeOne = async () => {
      const subscription = await addTestSubscription(app.services.db, { deviceLimit: 1 });
      const { device } = await issueTestDevice(app.services, subscription);
      return servers.find(({ server }) => server.id === device.vpnServerId)!.server.name;
    };
    const load = async (counts: [number, number]) => {
      for (const [index, liveDevices] of counts.entries())
        await app.services.db
          .update(vpnServers)
          .set({ liveDevices })
          .where(eq(vpnServers.id, servers[index]!.server.id));
    };

    it("avoids a server a required service refuses while another passes, and never refuses the sale for it", async () => {
      const dstv = await addService({ name: "DStv", url: "https://dstv.example/ng/" });
      const optional = await addService({ name: "Startimes", url: "https://s.example/", required: false });
      expect(
        await app.services.db
          .select()
          .from(vpnServers)
          .where(and(ne(vpnServers.status, "draining"), inArray(vpnServers.id, ids()))),
      ).toHaveLength(2);
      // ng-stream-a is the less loaded: it would be chosen.
      await load([0, 50]);
      expect(await placeOne()).toBe("ng-stream-a");
      await report(0, [result(dstv, false)]);
      await report(1, [result(dstv, true)]);
      expect(await placeOne(), "the server that passes, though fuller").toBe("ng-stream-b");
      // An optional service failing steers nothing.
      await report(0, [result(dstv, true), result(optional, false)]);
      await load([0, 50]);
      expect(await placeOne()).toBe("ng-stream-a");
      // Both fail: placed as before, by load.
      await report(0, [result(dstv, false)]);
      await report(1, [result(dstv, false)]);
      await load([0, 50]);
      expect(await placeOne()).toBe("ng-stream-a");
      await load([50, 0]);
      expect(await placeOne()).toBe("ng-stream-b");
    });
  });
});
