import { and, count, eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { customerSession, customerUser, outboxMessages } from "#server/db/schema/index.ts";
import { SIGN_IN_LIMITS } from "#server/domain/account/customer-auth.ts";
import { ADDRESS_MAIL_LIMIT } from "#server/domain/mail/address-limit.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import {
  accountRequest,
  askForSignInLink,
  buy,
  CUSTOMER_SESSION_COOKIE,
  openSignInLink,
  signedInCustomer,
  signInFormTarget,
  signInLink,
} from "../../support/account.ts";
import { createAccount, queuedEmails, STAFF_EMAIL } from "../../support/staff.ts";

/** Sign-in e-mails queued for `to`, once those composed after the answers are in. */
async function mailsTo(app: TestApp, to: string) {
  await app.services.mail.detachedSettled();
  const [row] = await app.services.db
    .select({ value: count() })
    .from(outboxMessages)
    .where(and(eq(outboxMessages.toAddress, to), eq(outboxMessages.kind, "account.sign-in")));
  return row!.value;
}

describe.each(databaseKinds)("customer sign-in by e-mailed link, on %s", (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ kind });
  });
  afterAll(async () => {
    await app?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("e-mails a buyer a link that signs them in to /account once", async () => {
    await buy(app, "pro-monthly", "once@example.com");
    const asked = await askForSignInLink(app, "once@example.com");
    expect(asked.status).toBe(200);
    const link = await signInLink(app, "once@example.com");
    expect(link).toMatch(/^http:\/\/localhost:3000\/account\?token=[A-Za-z0-9]{32}$/);
    // Rendered like every customer e-mail: the HTML part leads to the same page, replies go to support.
    const [queued] = (await queuedEmails(app, "once@example.com")).filter(
      (email) => email.kind === "account.sign-in",
    );
    expect(queued!.subject).toBe(`Your ${app.config.BRAND_NAME} sign-in link`);
    expect(queued!.html).toContain(`href="${link}"`);
    expect(queued!.html).toContain('href="http://localhost:3000/account"');
    expect(queued!.replyTo).toBe(app.config.SUPPORT_EMAIL);
    // A mail scanner fetching the link gets the page, not a session, and spends nothing.
    for (let scan = 0; scan < 2; scan++) await signInFormTarget(app, link);

    const first = await openSignInLink(app, link);
    expect(first.response.status).toBe(302);
    expect(first.location).toBe("http://localhost:3000/account");
    expect(first.cookie).toMatch(new RegExp(`^${CUSTOMER_SESSION_COOKIE.replace(".", "\\.")}=`));
    const page = await app.request("/account", { headers: { cookie: first.cookie } });
    const html = await page.text();
    expect(html).toContain("Signed in as <!-- -->once@example.com");
    expect(html).toContain("Pro Monthly");

    const again = await openSignInLink(app, link);
    expect(again.location).toMatch(/\/account\?sign-in=failed/);
    expect(again.cookie).toBe("");
    const failedPage = await app.request(again.location!);
    expect(await failedPage.text()).toContain("This sign-in link has expired or was already used.");
  });

  it("stores only the hash of the link's token and never logs the link", async () => {
    await buy(app, "basic-monthly", "secret@example.com");
    await askForSignInLink(app, "secret@example.com");
    const link = await signInLink(app, "secret@example.com");
    const token = new URL(link).searchParams.get("token")!;
    await openSignInLink(app, link);
    const stored = await app.services.db.execute(sql`select identifier, value from customer_verification`);
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(app.log.text).not.toContain(token);
  });

  it("answers an address that never bought exactly like a buyer's, and sends it nothing", async () => {
    await buy(app, "unlock", "bought@example.com");
    const buyer = await askForSignInLink(app, "bought@example.com");
    const stranger = await askForSignInLink(app, "never-bought@example.com");
    expect(stranger.status).toBe(buyer.status);
    expect(await stranger.text()).toBe(await buyer.text());
    expect(await mailsTo(app, "bought@example.com")).toBe(1);
    expect(await mailsTo(app, "never-bought@example.com")).toBe(0);
    const [users] = await app.services.db
      .select({ value: count() })
      .from(customerUser)
      .where(eq(customerUser.email, "never-bought@example.com"));
    expect(users!.value).toBe(0);
  });

  it("finds the buyer's subscriptions whatever the case of the address typed", async () => {
    await buy(app, "pro-monthly", "Mixed.Case@Example.com");
    const cookie = await signedInCustomer(app, "mixed.case@example.com");
    const listed = await accountRequest(app, "subscriptions", {}, cookie);
    const { subscriptions } = (await listed.json()) as { subscriptions: unknown[] };
    expect(subscriptions).toHaveLength(1);
  });

  it("lets a link work for 15 minutes and not a second longer", async () => {
    await buy(app, "pro-monthly", "clock@example.com");
    const start = new Date();
    vi.useFakeTimers({ toFake: ["Date"], now: start });
    await askForSignInLink(app, "clock@example.com");
    const early = await signInLink(app, "clock@example.com");
    vi.setSystemTime(start.getTime() + 14 * 60_000);
    expect((await openSignInLink(app, early)).cookie).not.toBe("");

    vi.setSystemTime(start.getTime() + 20 * 60_000);
    await askForSignInLink(app, "clock@example.com");
    const late = await signInLink(app, "clock@example.com");
    expect(late).not.toBe(early);
    vi.setSystemTime(start.getTime() + 20 * 60_000 + 15 * 60_000 + 1_000);
    const expired = await openSignInLink(app, late);
    expect(expired.cookie).toBe("");
    expect(expired.location).toMatch(/sign-in=failed/);
  });

  it("limits the links sent to one address, whoever asks from wherever, without ever locking its owner out", async () => {
    await buy(app, "basic-monthly", "limited@example.com");
    for (const email of ["limited@example.com", "limited-stranger@example.com"]) {
      // Twelve requests from twelve client addresses: each answered alike, as a sent link would be.
      for (let index = 0; index < 12; index++) {
        const response = await askForSignInLink(app, email, `10.1.0.${index + 1}`);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ status: true });
      }
    }
    expect(await mailsTo(app, "limited@example.com")).toBe(ADDRESS_MAIL_LIMIT.limit);
    expect(await mailsTo(app, "limited-stranger@example.com")).toBe(0);
    // The owner asks too: no new mail, but the newest link sent still signs them in.
    expect((await askForSignInLink(app, "limited@example.com", "10.1.1.1")).status).toBe(200);
    const { cookie } = await openSignInLink(app, await signInLink(app, "limited@example.com"));
    expect(cookie).not.toBe("");

    for (let index = 0; index < SIGN_IN_LIMITS.perClient; index++) {
      expect((await askForSignInLink(app, `client-${index}@example.com`, "10.2.0.1")).status).toBe(200);
    }
    expect((await askForSignInLink(app, "client-last@example.com", "10.2.0.1")).status).toBe(429);
    expect((await askForSignInLink(app, "client-last@example.com", "10.2.0.2")).status).toBe(200);
  });

  it("sends the link from the /account form too, with the same answer for anyone", async () => {
    await buy(app, "basic-monthly", "form@example.com");
    for (const email of ["form@example.com", "form-stranger@example.com"]) {
      const response = await app.request("/account?_data", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: app.config.PUBLIC_URL },
        body: new URLSearchParams({ intent: "sign-in", email }).toString(),
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("a sign-in");
    }
    expect(await mailsTo(app, "form@example.com")).toBe(1);
    expect(await mailsTo(app, "form-stranger@example.com")).toBe(0);
  });

  it("keeps staff and customer sessions apart, both ways", async () => {
    await buy(app, "pro-monthly", STAFF_EMAIL);
    const customerCookie = await signedInCustomer(app, STAFF_EMAIL);
    // A customer session, even for a staff address, opens nothing in the admin area: it is
    // recognised and refused (issue 15), like any signed-in visitor who is not staff.
    expect(
      (await app.request("/api/blog-admin/list", { json: {}, headers: { cookie: customerCookie } })).status,
    ).toBe(403);
    const adminPage = await app.request("/admin/blog", {
      headers: { cookie: customerCookie },
      redirect: "manual",
    });
    expect(adminPage.headers.get("location")).toBe("/");

    const staff = await createAccount(app, STAFF_EMAIL);
    expect(
      (await app.request("/api/blog-admin/list", { json: {}, headers: { cookie: staff.cookie } })).status,
    ).toBe(200);
    // A staff session (cookie or bearer token) is not a customer session.
    expect((await accountRequest(app, "subscriptions", {}, staff.cookie)).status).toBe(401);
    const bearer = await app.request("/api/account/subscriptions", {
      json: {},
      headers: { authorization: `Bearer ${staff.bearer}` },
    });
    expect(bearer.status).toBe(401);
    const accountPage = await (await app.request("/account", { headers: { cookie: staff.cookie } })).text();
    expect(accountPage).toContain("Email me a sign-in link");
    // Nor does the staff session token pass as a customer cookie, or the other way round.
    const staffToken = staff.cookie
      .split("; ")
      .find((pair) => pair.startsWith("better-auth.session_token="))!;
    const forged = `${CUSTOMER_SESSION_COOKIE}=${staffToken.split("=").slice(1).join("=")}`;
    expect((await accountRequest(app, "subscriptions", {}, forged)).status).toBe(401);
    const [sessions] = await app.services.db.select({ value: count() }).from(customerSession);
    expect(sessions!.value).toBeGreaterThan(0);
  });

  it("signs the customer out", async () => {
    await buy(app, "unlock", "leaving@example.com");
    const cookie = await signedInCustomer(app, "leaving@example.com");
    const signOut = await app.request("/account", {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie,
        "content-type": "application/x-www-form-urlencoded",
        origin: app.config.PUBLIC_URL,
      },
      body: new URLSearchParams({ intent: "sign-out" }).toString(),
    });
    expect(signOut.status).toBe(302);
    expect((await accountRequest(app, "subscriptions", {}, cookie)).status).toBe(401);
  });
});
