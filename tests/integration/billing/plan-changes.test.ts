// Plan changes on a demo store (decision 104): upgrade, downgrade with the devices to keep, monthly
// ↔ yearly, and the Unlock Pass's own checkout (7 more days, or a plan), from /account and by staff.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devices, planChanges, staffAuditLog, subscriptions } from "#server/db/schema/index.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import type { PlanChangeQuote } from "#server/domain/billing/plan-change.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { accountRequest, buy, signedInCustomer } from "../../support/account.ts";
import { databaseKinds } from "../../support/database.ts";
import { payWith } from "../../support/purchase.ts";
import { createAccount, OTHER_STAFF_EMAIL, queuedEmails, STAFF_EMAIL } from "../../support/staff.ts";

const DAY_MS = 86_400_000;

describe.each(databaseKinds)("plan changes on a demo store, on %s", (kind) => {
  let app: TestApp;
  const cookies: Record<string, string> = {};

  async function subscriptionOf(who: string): Promise<AccountSubscription> {
    const response = await accountRequest(app, "subscriptions", {}, cookies[who]);
    const { subscriptions: list } = (await response.json()) as { subscriptions: AccountSubscription[] };
    expect(list).toHaveLength(1);
    return list[0]!;
  }
  const call = (who: string, path: string, body: unknown) => accountRequest(app, path, body, cookies[who]);
  const row = async (id: string) =>
    (await app.services.db.select().from(subscriptions).where(eq(subscriptions.id, id)))[0]!;
  const liveDeviceIds = async (id: string) =>
    (await app.services.db.select().from(devices).where(eq(devices.subscriptionId, id))).filter(
      (device) => !device.revokedAt,
    );
  const emailsOf = async (to: string) =>
    (await queuedEmails(app, to)).filter((email) => email.kind === "plan-changed");

  beforeAll(async () => {
    app = await createTestApp({ kind });
    for (const [who, plan] of [
      ["ada", "basic-monthly"],
      ["bola", "pro-monthly"],
      ["chioma", "unlock"],
      ["dayo", "unlock"],
      ["emeka", "pro-monthly"],
    ] as const) {
      await buy(app, plan, `${who}@example.com`);
      cookies[who] = await signedInCustomer(app, `${who}@example.com`);
    }
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("upgrades Basic to Pro Monthly at once: the prorated difference, three devices, an e-mail", async () => {
    const { id: subscriptionId } = await subscriptionOf("ada");
    const quoted = await call("ada", "subscriptions/plan-change/quote", {
      subscriptionId,
      planId: "pro-monthly",
    });
    expect(quoted.status).toBe(200);
    const quote = (await quoted.json()) as PlanChangeQuote;
    expect(quote).toMatchObject({
      kind: "upgrade",
      chargedNow: false,
      keepCount: null,
      throughCheckout: false,
    });
    // Bought moments ago: nearly the whole month's difference, $7.99 − $4.99.
    expect(quote.amountCents).toBeGreaterThanOrEqual(299);
    expect(quote.amountCents).toBeLessThanOrEqual(300);

    const changed = await call("ada", "subscriptions/plan-change", { subscriptionId, planId: "pro-monthly" });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ status: "applied", planId: "pro-monthly", deviceLimit: 3 });
    expect(await subscriptionOf("ada")).toMatchObject({
      id: subscriptionId,
      planName: "Pro Monthly",
      deviceLimit: 3,
    });
    for (const slot of [2, 3]) {
      const added = await call("ada", "devices/add", { subscriptionId });
      expect(added.status).toBe(200);
      expect(await added.json()).toMatchObject({ slot });
    }
    expect((await call("ada", "devices/add", { subscriptionId })).status).toBe(409);
    const [email] = await emailsOf("ada@example.com");
    expect(email?.subject).toContain("You are now on Pro Monthly");
    expect(email?.text).toContain("Basic Monthly");
    expect(email?.text).toMatch(/\$[23]\.\d\d added to your next invoice/);
  });

  it("asks which devices to keep on a downgrade and revokes the others only when it takes effect", async () => {
    const { id: subscriptionId, devices: before } = await subscriptionOf("ada");
    expect(before).toHaveLength(3);
    const quote = (await (
      await call("ada", "subscriptions/plan-change/quote", { subscriptionId, planId: "basic-monthly" })
    ).json()) as PlanChangeQuote;
    expect(quote).toMatchObject({ kind: "downgrade", keepCount: 1 });
    expect(quote.amountCents).toBeLessThan(0);
    expect(quote.devices.map((device) => device.slot)).toEqual([1, 2, 3]);

    const bolasDevice = (await subscriptionOf("bola")).devices[0]!.id;
    for (const keepDeviceIds of [undefined, [], [before[0]!.id, before[1]!.id], [bolasDevice]]) {
      const refused = await call("ada", "subscriptions/plan-change", {
        subscriptionId,
        planId: "basic-monthly",
        ...(keepDeviceIds ? { keepDeviceIds } : {}),
      });
      expect(refused.status, JSON.stringify(keepDeviceIds)).toBe(400);
      expect(await refused.json()).toMatchObject({ error: "Invalid request" });
    }
    expect(await liveDeviceIds(subscriptionId)).toHaveLength(3);
    expect((await row(subscriptionId)).planId).toBe("pro-monthly");

    const kept = before[2]!;
    const changed = await call("ada", "subscriptions/plan-change", {
      subscriptionId,
      planId: "basic-monthly",
      keepDeviceIds: [kept.id],
    });
    expect(changed.status).toBe(200);
    const after = await subscriptionOf("ada");
    expect(after).toMatchObject({ planName: "Basic Monthly", deviceLimit: 1 });
    expect(after.devices.map((device) => [device.id, device.slot])).toEqual([[kept.id, 1]]);
    expect((await app.request(new URL(kept.downloadUrl).pathname)).status).toBe(200);
    for (const gone of before.slice(0, 2))
      expect((await app.request(new URL(gone.downloadUrl).pathname)).status).toBe(410);
    // The kept device holds slot 1: a free slot is no longer offered.
    expect((await call("ada", "devices/add", { subscriptionId })).status).toBe(409);
    const email = (await emailsOf("ada@example.com")).at(-1)!;
    expect(email.text).toContain("credited to your next invoice");
    expect(email.text).toContain(`${before[0]!.name}, ${before[1]!.name}`);
  });

  it("switches Pro Monthly to Pro Yearly: a new yearly period, charged now less the unused month", async () => {
    const { id: subscriptionId } = await subscriptionOf("bola");
    const quote = (await (
      await call("bola", "subscriptions/plan-change/quote", { subscriptionId, planId: "pro-yearly" })
    ).json()) as PlanChangeQuote;
    expect(quote).toMatchObject({ kind: "switch", chargedNow: true, keepCount: null });
    expect(quote.amountCents).toBeGreaterThanOrEqual(7999 - 799);
    expect(quote.amountCents).toBeLessThanOrEqual(7999 - 798);
    const startedAt = Date.now();
    expect(
      (await call("bola", "subscriptions/plan-change", { subscriptionId, planId: "pro-yearly" })).status,
    ).toBe(200);
    const switched = await row(subscriptionId);
    expect(switched).toMatchObject({ planId: "pro-yearly", planType: "pro_yearly", deviceLimit: 3 });
    expect(switched.expiresAt.getTime()).toBeGreaterThanOrEqual(startedAt + 365 * DAY_MS - 1000);
    expect((await subscriptionOf("bola")).devices).toHaveLength(1);
  });

  it("gives an Unlock Pass 7 more days through a paid checkout, on the same pass", async () => {
    const pass = await subscriptionOf("chioma");
    const started = await call("chioma", "subscriptions/pass-checkout", {
      subscriptionId: pass.id,
      planId: "unlock",
    });
    expect(started.status).toBe(200);
    const { url } = (await started.json()) as { url: string };
    const sessionId = new URL(url).pathname.split("/").pop()!;
    const paid = await payWith(app, sessionId, "4242 4242 4242 4242");
    expect(paid.status).toBe(302);
    expect(paid.headers.get("location")).toBe("/account?plan-change=paid");
    // Paying again (a second click) extends once.
    expect((await payWith(app, sessionId, "4242 4242 4242 4242")).status).toBe(302);
    const extended = await subscriptionOf("chioma");
    expect(extended.id).toBe(pass.id);
    expect(new Date(extended.expiresAt).getTime() - new Date(pass.expiresAt).getTime()).toBe(7 * DAY_MS);
    expect(extended.devices.map((device) => device.id)).toEqual(pass.devices.map((device) => device.id));
    const [email] = await emailsOf("chioma@example.com");
    expect(email?.subject).toContain("Your Unlock Pass has 7 more days");
    expect(email?.text).toContain("$9.99 charged now");
  });

  it("moves an Unlock Pass to Pro Monthly through a checkout, keeping its device", async () => {
    const pass = await subscriptionOf("dayo");
    const started = await call("dayo", "subscriptions/pass-checkout", {
      subscriptionId: pass.id,
      planId: "pro-monthly",
    });
    const { url } = (await started.json()) as { url: string };
    expect((await payWith(app, new URL(url).pathname.split("/").pop()!, "4242 4242 4242 4242")).status).toBe(
      302,
    );
    const moved = await subscriptionOf("dayo");
    expect(moved).toMatchObject({ id: pass.id, planName: "Pro Monthly", deviceLimit: 3 });
    expect(moved.devices.map((device) => device.downloadUrl)).toEqual(
      pass.devices.map((device) => device.downloadUrl),
    );
    expect((await call("dayo", "devices/add", { subscriptionId: pass.id })).status).toBe(200);
  });

  it("lets staff change a plan from the console, audited, and refuses editors", async () => {
    const { id: subscriptionId } = await subscriptionOf("emeka");
    const admin = (await createAccount(app, STAFF_EMAIL)).cookie;
    const editor = (await createAccount(app, OTHER_STAFF_EMAIL)).cookie;
    const body = { subscriptionId, planId: "basic-monthly", reason: "customer asked by phone" };
    const asEditor = await app.request("/api/admin/subscriptions/change-plan", {
      json: body,
      headers: { cookie: editor },
    });
    expect(asEditor.status).toBe(403);
    const asCustomer = await app.request("/api/admin/subscriptions/change-plan", {
      json: body,
      headers: { cookie: cookies.emeka! },
    });
    expect(asCustomer.status).toBe(403);
    const anonymous = await app.request("/api/admin/subscriptions/change-plan", { json: body });
    expect(anonymous.status).toBe(401);
    expect((await row(subscriptionId)).planId).toBe("pro-monthly");

    const changed = await app.request("/api/admin/subscriptions/change-plan", {
      json: body,
      headers: { cookie: admin },
    });
    expect(changed.status).toBe(200);
    expect(await row(subscriptionId)).toMatchObject({ planId: "basic-monthly", deviceLimit: 1 });
    const [entry] = await app.services.db
      .select()
      .from(staffAuditLog)
      .where(
        and(eq(staffAuditLog.targetId, subscriptionId), eq(staffAuditLog.action, "subscription.change-plan")),
      );
    expect(entry).toMatchObject({ reason: "customer asked by phone", staffEmail: STAFF_EMAIL });
    expect(entry!.details).toMatchObject({ from: "pro-monthly", to: "basic-monthly", kind: "downgrade" });
    const email = (await emailsOf("emeka@example.com")).at(-1)!;
    expect(email.text).toContain("Our support team changed your plan");
    const page = await app.request(`/admin/subscriptions/${subscriptionId}`, { headers: { cookie: admin } });
    expect(await page.text()).toContain("Change plan");
  });

  it("answers 401 without a session and 404 for another customer's subscription, changing nothing", async () => {
    const { id: bolas } = await subscriptionOf("bola");
    const bodies = [
      { path: "subscriptions/plan-change/quote", body: { subscriptionId: bolas, planId: "basic-monthly" } },
      { path: "subscriptions/plan-change", body: { subscriptionId: bolas, planId: "pro-monthly" } },
      { path: "subscriptions/pass-checkout", body: { subscriptionId: bolas, planId: "unlock" } },
    ];
    const before = await row(bolas);
    for (const { path, body } of bodies) {
      const anonymous = await accountRequest(app, path, body);
      expect(anonymous.status, path).toBe(401);
      const other = await call("ada", path, body);
      expect(other.status, path).toBe(404);
      expect(await other.json()).toMatchObject({ error: "Not found" });
    }
    expect(await row(bolas)).toEqual(before);
  });

  it("refuses bad input with a 4xx and changes nothing", async () => {
    const { id: adas } = await subscriptionOf("ada");
    const { id: chiomas } = await subscriptionOf("chioma");
    const changesBefore = await app.services.db.select().from(planChanges);
    const cases: Array<[string, unknown, number, string?]> = [
      ["subscriptions/plan-change", { subscriptionId: adas, planId: "platinum" }, 400],
      ["subscriptions/plan-change", { subscriptionId: "not-a-uuid", planId: "pro-monthly" }, 400],
      ["subscriptions/plan-change", { subscriptionId: adas, planId: "pro-monthly", extra: 1 }, 400],
      [
        "subscriptions/plan-change",
        { subscriptionId: adas, planId: "pro-monthly", keepDeviceIds: "all" },
        400,
      ],
      ["subscriptions/plan-change", { subscriptionId: adas, planId: "basic-monthly" }, 409],
      ["subscriptions/plan-change", { subscriptionId: adas, planId: "unlock" }, 409],
      ["subscriptions/plan-change", { subscriptionId: chiomas, planId: "pro-monthly" }, 409, "chioma"],
      ["subscriptions/pass-checkout", { subscriptionId: adas, planId: "unlock" }, 409],
      ["subscriptions/plan-change/quote", { subscriptionId: adas }, 400],
    ];
    for (const [path, body, status, who = "ada"] of cases) {
      const response = await call(who, path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      const answer = (await response.json()) as { error?: unknown; message?: unknown };
      expect(typeof answer.error).toBe("string");
      expect(typeof answer.message).toBe("string");
    }
    expect(await app.services.db.select().from(planChanges)).toEqual(changesBefore);
  });
});
