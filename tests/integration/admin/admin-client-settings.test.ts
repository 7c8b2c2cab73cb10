// The servers page's client-settings actions (issue 22, decision 090): the route action of
// /admin/servers behind its fetcher forms. Admins only, from the site's own page, one schema,
// every change audited with its reason; a refused one changes nothing and records nothing.
import { desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { staffAuditLog, vpnServers } from "#server/db/schema/index.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { databaseKinds } from "../../support/database.ts";
import { addTestVpnServer } from "../../support/vpn.ts";
import { createAccount, OTHER_STAFF_EMAIL, STAFF_EMAIL } from "../../support/staff.ts";

describe.each(databaseKinds)("client settings on the servers page on %s", (kind) => {
  let app: TestApp;
  let admin: string;
  let serverId: string;
  beforeAll(async () => {
    app = await createTestApp({ kind });
    admin = (await createAccount(app, STAFF_EMAIL)).cookie;
    serverId = (await addTestVpnServer(app.services.db, { name: "ng-console-settings", octet: 61 })).id;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  /** What the card's fetcher form posts (the route's single-fetch data request). */
  const submit = async (fields: Record<string, string>, headers: Record<string, string> = {}) => {
    const response = await app.request("/admin/servers.data", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "sec-fetch-site": "same-origin",
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: response.status, text: await response.text() };
  };
  const row = async () =>
    (await app.services.db.select().from(vpnServers).where(eq(vpnServers.id, serverId)))[0]!;
  const audit = () =>
    app.services.db
      .select()
      .from(staffAuditLog)
      .where(eq(staffAuditLog.targetId, serverId))
      .orderBy(desc(staffAuditLog.id));
  const setMtu = (mtu: string, reason = "hotel networks drop fragments") => ({
    intent: "set-mtu",
    serverId,
    mtu,
    reason,
  });

  it("lets only an admin change settings, from the site's own page", async () => {
    const editor = (await createAccount(app, OTHER_STAFF_EMAIL)).cookie;
    await buy(app, "unlock", "settings-buyer@example.com");
    const customer = await signedInCustomer(app, "settings-buyer@example.com");
    for (const [who, cookie, status] of [
      ["anonymous", "", 401],
      ["a customer", customer, 403],
      ["an editor", editor, 403],
    ] as const) {
      const refused = await submit(setMtu("1400"), cookie ? { cookie } : {});
      expect(refused.status, who).toBe(status);
    }
    const crossSite = await submit(setMtu("1400"), { cookie: admin, "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect(crossSite.text).toContain("Send this form from the site's own page.");
    expect((await row()).clientMtu).toBe(1280);
    expect(await audit()).toEqual([]);
  });

  it("refuses bad input with its message, changing and recording nothing", async () => {
    const invalid: Array<Record<string, string>> = [
      setMtu("1500"),
      setMtu("abc"),
      setMtu("1400", ""),
      { ...setMtu("1400"), extra: "1" },
      { ...setMtu("1400"), serverId: "not-an-id" },
      { intent: "set-ports", serverId, ports: "443, 443", reason: "more ways in" },
      { intent: "set-ports", serverId, ports: "51820", reason: "more ways in" },
      { intent: "set-ports", serverId, ports: "https", reason: "more ways in" },
      { intent: "set-dns", serverId, dns: "resolver.example", reason: "operator's resolver" },
      { intent: "set-dns", serverId, dns: "", reason: "operator's resolver" },
      { intent: "delete-server", serverId, reason: "no such action" },
    ];
    for (const fields of invalid) {
      const refused = await submit(fields, { cookie: admin });
      expect(refused.status, JSON.stringify(fields)).toBe(400);
      expect(refused.text).toContain("Invalid request");
    }
    const unknown = await submit(
      { ...setMtu("1400"), serverId: "00000000-0000-4000-8000-000000000000" },
      { cookie: admin },
    );
    expect(unknown.status).toBe(404);
    const unchanged = await submit(setMtu("1280"), { cookie: admin });
    expect(unchanged.status).toBe(409);
    expect(unchanged.text).toContain("already gives its clients MTU 1280");
    expect(await row()).toMatchObject({ clientMtu: 1280, alternatePorts: [443], nodeResolver: true });
    expect(await audit()).toEqual([]);
  });

  it("changes the MTU, ports and DNS as set-mtu, set-ports and set-dns do, each audited with its reason", async () => {
    expect((await submit(setMtu("1400"), { cookie: admin })).status).toBe(200);
    expect(
      (
        await submit(
          { intent: "set-ports", serverId, ports: "443, 53", reason: "port 53 for a hotel" },
          { cookie: admin },
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await submit(
          { intent: "set-dns", serverId, dns: "9.9.9.9, 149.112.112.112", reason: "resolver down" },
          { cookie: admin },
        )
      ).status,
    ).toBe(200);
    expect(await row()).toMatchObject({
      clientMtu: 1400,
      alternatePorts: [443, 53],
      nodeResolver: false,
      dns: "9.9.9.9, 149.112.112.112",
    });
    const entries = (await audit()).reverse();
    expect(entries.map((entry) => [entry.action, entry.reason, entry.staffEmail, entry.details])).toEqual([
      [
        "server.set-mtu",
        "hotel networks drop fragments",
        STAFF_EMAIL,
        { name: "ng-console-settings", from: 1280, to: 1400 },
      ],
      [
        "server.set-ports",
        "port 53 for a hotel",
        STAFF_EMAIL,
        { name: "ng-console-settings", from: [443], to: [443, 53] },
      ],
      [
        "server.set-dns",
        "resolver down",
        STAFF_EMAIL,
        { name: "ng-console-settings", from: "node", to: "9.9.9.9, 149.112.112.112" },
      ],
    ]);
    // The page shows them.
    const page = await (await app.request("/admin/servers", { headers: { cookie: admin } })).text();
    expect(page).toContain("UDP 443, 53");
    expect(page).toContain("9.9.9.9, 149.112.112.112");
    // Desired against applied (decision 129): no node has reported applying them.
    expect(page).toMatch(
      /data-testid="node-settings">node has not reported its settings \(settings version 4\)/,
    );
  });
});
