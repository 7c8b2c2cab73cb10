// Demo money never becomes live money (decision 122): plans bought with the demo's test card keep
// their period after the store goes live and then end. They cannot change plan, resume, be
// extended through a pass checkout or by staff, or be refunded; staff can end them; /admin marks
// them "demo" and `npm run doctor` counts them.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkoutSessions,
  planChanges,
  staffAuditLog,
  subscriptionNotices,
  subscriptions,
  type Subscription,
} from "#server/db/schema/index.ts";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import { queueDueReminders } from "#server/domain/billing/reminders.ts";
import { formatCheck } from "#server/domain/ops/doctor/check.ts";
import { storeChecks } from "#server/domain/ops/doctor/store.ts";
import { expireDue } from "#server/domain/vpn/lifecycle.ts";
import {
  accountRequest,
  askForSignInLink,
  buy,
  CUSTOMER_SESSION_COOKIE,
  openSignInLink,
  signedInCustomer,
  signInLink,
} from "../../support/account.ts";
import type { TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { newPlace, startApp, type Place } from "../../support/place.ts";
import { cookieHeader, createAccount, signIn } from "../../support/staff.ts";

const DAY_MS = 86_400_000;
const OWNER = "owner@naijalink.example";
const LIVE = {
  NAIJALINK_MODE: "live",
  PUBLIC_URL: "https://naijalink.example",
  STRIPE_SECRET_KEY: "sk_test_naijalink_unused",
  STRIPE_WEBHOOK_SECRET: "whsec_test_naijalink_unused",
  SMTP_URL: "smtp://mail.naijalink.example:587",
  STAFF_ADMINS: OWNER,
  // The live default asks staff for two-factor; this test is about money, not sign-in.
  STAFF_REQUIRE_TOTP: "false",
};
const BUYERS = {
  ada: "pro-monthly", // changes plan
  bola: "unlock", // extends the pass
  chioma: "pro-monthly", // cancelled at period end in the demo, then resumes
  dayo: "pro-yearly", // staff move it forward
  emeka: "basic-monthly", // staff end it
} as const;
type Buyer = keyof typeof BUYERS;

const visibleText = (html: string) =>
  html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;|&apos;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, " ");

describe.each(databaseKinds)("demo purchases after a live start, on %s", (kind) => {
  let place: Place;
  let app: TestApp;
  const ids = {} as Record<Buyer, string>;
  const cookies = {} as Record<Buyer, string>;
  let staffCookie: string;
  let demoDoctor: string[];

  const row = async (id: string): Promise<Subscription> =>
    (await app.services.db.select().from(subscriptions).where(eq(subscriptions.id, id)))[0]!;
  const doctorLines = async (target: TestApp, now = new Date()) =>
    (await storeChecks(target.services.db, target.services.dbKind, target.config, now)).map(formatCheck);
  const form = (fields: Record<string, string>, cookie: string) =>
    app.request("/account", {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: app.config.PUBLIC_URL,
        cookie,
      },
      body: new URLSearchParams(fields).toString(),
    });
  const staff = (path: string, body: Record<string, unknown>) =>
    app.request(`/api/admin/${path}`, { json: body, headers: { cookie: staffCookie } });
  const staffPage = async (path: string) => {
    const response = await app.request(path, { headers: { cookie: staffCookie } });
    expect(response.status, path).toBe(200);
    return response.text();
  };

  /** A 409 `{ error, message }` about a demo purchase, and nothing about the subscription changed. */
  async function expectDemoRefusal(response: Response, error: string) {
    expect(response.status).toBe(409);
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe(error);
    expect(body.message).toMatch(/demo's test card/);
    return body.message;
  }

  beforeAll(async () => {
    place = await newPlace(kind, "demo_live");
    // The demo: everyone buys with the test card; chioma cancels her renewal.
    const demo = await startApp(place, { STAFF_ADMINS: OWNER });
    try {
      await createAccount(demo, OWNER);
      for (const [buyer, plan] of Object.entries(BUYERS) as [Buyer, string][]) {
        const sessionId = await buy(demo, plan, `${buyer}@example.com`);
        const [bought] = await demo.services.db
          .select()
          .from(subscriptions)
          .where(eq(subscriptions.checkoutSessionId, sessionId));
        ids[buyer] = bought!.id;
      }
      const chioma = await signedInCustomer(demo, "chioma@example.com");
      const cancelled = await accountRequest(
        demo,
        "subscriptions/cancel",
        { subscriptionId: ids.chioma },
        chioma,
      );
      expect(cancelled.status).toBe(200);
      demoDoctor = await doctorLines(demo);
    } finally {
      await demo.close();
    }
    // The same store, live.
    app = await startApp(place, LIVE);
    // An https store's session cookies carry the __Secure- prefix: any of them is the customer's.
    for (const buyer of Object.keys(BUYERS) as Buyer[]) {
      const email = `${buyer}@example.com`;
      expect((await askForSignInLink(app, email)).status).toBe(200);
      const { response } = await openSignInLink(app, await signInLink(app, email));
      cookies[buyer] = cookieHeader(response);
      expect(cookies[buyer]).toContain(`${CUSTOMER_SESSION_COOKIE}=`);
    }
    const signedIn = await signIn(app, OWNER);
    expect(signedIn.status).toBe(200);
    staffCookie = cookieHeader(signedIn);
  }, 300_000);
  afterAll(async () => {
    await app?.close();
    await place?.remove();
  });

  it("a demo purchase keeps its paid-for period: its configs still work, /account says it ends and why", async () => {
    const response = await accountRequest(app, "subscriptions", {}, cookies.ada);
    const [ada] = ((await response.json()) as { subscriptions: AccountSubscription[] }).subscriptions;
    expect(ada).toMatchObject({ id: ids.ada, status: "active", usable: true, demoPurchase: true });

    const page = await app.request("/account", { headers: { cookie: cookies.ada } });
    expect(page.status).toBe(200);
    const html = await page.text();
    const text = visibleText(html);
    expect(text).toContain("Demo purchase: this plan was bought with the demo's test card");
    expect(text).toContain("Ends on");
    expect(text).not.toContain("Next Billing");
    // Nothing on the page offers to move it forward.
    expect(html).not.toContain(`name="change" value="${ids.ada}"`);
    expect(text).not.toContain("Cancel at period end");
  });

  it("cannot change plan: the quote and the change answer 409 through the API and the page, and nothing is recorded", async () => {
    const before = await row(ids.ada);
    const target = { subscriptionId: ids.ada, planId: "pro-yearly" };
    const message = await expectDemoRefusal(
      await accountRequest(app, "subscriptions/plan-change/quote", target, cookies.ada),
      "Demo purchase",
    );
    expect(message).toContain("cannot renew, resume or change plan");
    expect(message).toContain("choose a plan on the pricing page");
    await expectDemoRefusal(
      await accountRequest(app, "subscriptions/plan-change", target, cookies.ada),
      "Demo purchase",
    );

    // Without JavaScript: the review step and the confirmation post.
    const review = await app.request(`/account?change=${ids.ada}&planId=pro-yearly`, {
      headers: { cookie: cookies.ada },
    });
    expect(visibleText(await review.text())).not.toContain("Confirm change");
    const posted = await form({ intent: "change-plan", ...target }, cookies.ada);
    expect(posted.status).toBe(409);
    expect(posted.headers.get("location")).toBeNull();
    expect(visibleText(await posted.text())).toContain(message);

    expect(await row(ids.ada)).toEqual(before);
    expect(
      await app.services.db.select().from(planChanges).where(eq(planChanges.subscriptionId, ids.ada)),
    ).toEqual([]);
  });

  it("cannot resume a cancelled renewal, through the API or the page", async () => {
    const before = await row(ids.chioma);
    expect(before.cancelAtPeriodEnd).toBe(true);
    await expectDemoRefusal(
      await accountRequest(app, "subscriptions/resume", { subscriptionId: ids.chioma }, cookies.chioma),
      "Demo purchase",
    );
    const posted = await form({ intent: "resume", subscriptionId: ids.chioma }, cookies.chioma);
    expect(posted.status).toBe(409);
    expect(visibleText(await posted.text())).toContain("bought with the demo's test card");
    expect(await row(ids.chioma)).toEqual(before);
    expect(
      visibleText(await (await app.request("/account", { headers: { cookie: cookies.chioma } })).text()),
    ).not.toContain("Resume renewal");
  });

  it("cannot extend or upgrade a demo pass through a checkout: no checkout starts", async () => {
    const sessionsBefore = (await app.services.db.select().from(checkoutSessions)).length;
    for (const planId of ["unlock", "pro-monthly"]) {
      await expectDemoRefusal(
        await accountRequest(
          app,
          "subscriptions/pass-checkout",
          { subscriptionId: ids.bola, planId },
          cookies.bola,
        ),
        "Demo purchase",
      );
      const posted = await form({ intent: "pass-checkout", subscriptionId: ids.bola, planId }, cookies.bola);
      expect(posted.status).toBe(409);
      expect(posted.headers.get("location")).toBeNull();
    }
    expect(await app.services.db.select().from(checkoutSessions)).toHaveLength(sessionsBefore);
  });

  it("staff cannot extend, refund, reactivate or change its plan (409, nothing recorded); the page says why and offers only the cancels", async () => {
    const before = await row(ids.dayo);
    const reason = "customer asked";
    const auditBefore = (await app.services.db.select().from(staffAuditLog)).length;
    for (const [path, body] of [
      ["subscriptions/extend", { subscriptionId: ids.dayo, reason, days: 30 }],
      ["subscriptions/refund", { subscriptionId: ids.dayo, reason }],
      ["subscriptions/change-plan", { subscriptionId: ids.dayo, planId: "pro-monthly", reason }],
    ] as const) {
      const message = await expectDemoRefusal(await staff(path, body), "Action not available");
      expect(message, path).toContain("Cancel now ends it sooner");
    }
    expect(await row(ids.dayo)).toEqual(before);

    // A demo purchase cancelled by staff at once cannot be brought back either.
    const ended = await staff("subscriptions/cancel", { subscriptionId: ids.emeka, reason, when: "now" });
    expect(ended.status).toBe(200);
    expect(await row(ids.emeka)).toMatchObject({ status: "canceled" });
    const refused = await expectDemoRefusal(
      await staff("subscriptions/reactivate", { subscriptionId: ids.emeka, reason }),
      "Action not available",
    );
    expect(refused).toMatch(/It ended on [^;]+\.$/);
    expect(await row(ids.emeka)).toMatchObject({ status: "canceled" });
    // Only the cancel was audited.
    expect((await app.services.db.select().from(staffAuditLog)).length).toBe(auditBefore + 1);

    const html = await staffPage(`/admin/subscriptions/${ids.dayo}`);
    expect(html).toContain('data-testid="demo-purchase"');
    expect(visibleText(html)).toContain("This is a demo purchase, paid with the demo's test card");
    const area = html.slice(
      html.indexOf('data-testid="staff-actions"'),
      html.indexOf('aria-label="Devices"'),
    );
    for (const label of ["Cancel at period end", "Cancel now"]) expect(area).toContain(`>${label}</button>`);
    for (const label of ["Extend", "Refund", "Reactivate", "Change plan"])
      expect(area, label).not.toContain(`>${label}</button>`);
  });

  it('the order and subscription lists mark each demo purchase "demo"', async () => {
    for (const path of ["/admin/orders", "/admin/subscriptions?status=all"]) {
      const html = await staffPage(path);
      // Each row is drawn twice: in the table and in its narrow-screen card.
      expect(html.match(/data-testid="demo-purchase"/g), path).toHaveLength(2 * Object.keys(BUYERS).length);
    }
  });

  it("npm run doctor counts the demo purchases still running on a line of its own, with what to do", async () => {
    // In the demo, where every plan is bought with the test card, there is no such line.
    expect(demoDoctor.some((line) => line.includes("demo purchases"))).toBe(false);
    const lines = await doctorLines(app);
    const line = lines.find((entry) => entry.startsWith("✗ demo purchases:"));
    // emeka's was ended by staff; the others still work.
    expect(line).toMatch(
      /^✗ demo purchases: 4 subscription\(s\) bought with the demo's test card still work/,
    );
    expect(line).toContain("none renews");
    expect(line).toContain("press Cancel now");
    // Once they have all run out, the line is a ✓.
    const later = new Date(Date.now() + 400 * DAY_MS);
    expect(await doctorLines(app, later)).toContain(
      "✓ demo purchases: none running: every usable subscription was paid for",
    );
  });
  it("a demo purchase of Pro Yearly is not told it renews", async () => {
    const { expiresAt } = await row(ids.dayo);
    await queueDueReminders(app.services, new Date(expiresAt.getTime() - DAY_MS));
    expect(
      await app.services.db
        .select()
        .from(subscriptionNotices)
        .where(eq(subscriptionNotices.subscriptionId, ids.dayo)),
    ).toEqual([]);
  });

  it("never renews: at its period end it ends like any plan that does not renew", async () => {
    const before = await row(ids.ada);
    const { expiresAt: lastMonthly } = await row(ids.chioma);
    await expireDue(app.services, new Date(lastMonthly.getTime() + 1000));
    expect(await row(ids.ada)).toMatchObject({ status: "expired", expiresAt: before.expiresAt });
    expect(await row(ids.chioma)).toMatchObject({ status: "canceled" });
    const response = await accountRequest(app, "subscriptions", {}, cookies.ada);
    const [ada] = ((await response.json()) as { subscriptions: AccountSubscription[] }).subscriptions;
    expect(ada).toMatchObject({ status: "expired", usable: false, devices: [] });
  });
});
