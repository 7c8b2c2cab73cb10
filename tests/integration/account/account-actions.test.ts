// The /account page's action (issue 27): each change is a form post with an intent, as the page
// sends it with or without JavaScript. Who may post which change, and what bad input gets.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AccountSubscription } from "#server/domain/account/account.ts";
import { readFlash } from "#server/http/flash.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { accountRequest, buy, signedInCustomer } from "../../support/account.ts";
import { createAccount, OTHER_STAFF_EMAIL, STAFF_EMAIL } from "../../support/staff.ts";

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

describe.each(databaseKinds)("the /account page's action, on %s", (kind) => {
  let app: TestApp;
  const buyers: Record<"ada" | "bola", { cookie: string; subscription: AccountSubscription }> = {} as never;

  async function listOf(cookie: string): Promise<AccountSubscription[]> {
    const response = await accountRequest(app, "subscriptions", {}, cookie);
    expect(response.status).toBe(200);
    return ((await response.json()) as { subscriptions: AccountSubscription[] }).subscriptions;
  }

  /** A form post to /account, as a browser without JavaScript sends it. */
  function post(fields: Record<string, string>, cookie = "", path = "/account") {
    return app.request(path, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: app.config.PUBLIC_URL,
        ...(cookie ? { cookie } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Every change, about bola's subscription or device. */
  function changesOfBola(): Record<string, string>[] {
    const { subscription } = buyers.bola;
    const subscriptionId = subscription.id;
    const deviceId = subscription.devices[0]!.id;
    return [
      { intent: "add-device", subscriptionId },
      { intent: "rename-device", deviceId, name: "Mine now" },
      { intent: "revoke-device", deviceId },
      { intent: "new-keys", deviceId },
      { intent: "move-device", deviceId, region: "ng-abuja" },
      { intent: "cancel", subscriptionId },
      { intent: "resume", subscriptionId },
      { intent: "billing", subscriptionId },
      { intent: "change-plan", subscriptionId, planId: "basic-monthly" },
      { intent: "pass-checkout", subscriptionId, planId: "unlock" },
    ];
  }

  /** A refused post: a 4xx page that says why in its alert, and no redirect. */
  async function expectRefused(response: Response, status: number, message: RegExp | string) {
    expect(response.status).toBe(status);
    expect(response.headers.get("location")).toBeNull();
    const html = await response.text();
    const alert = /data-testid="account-refusal"[^>]*>([\s\S]*?)<\/div>/.exec(html)?.[1] ?? "";
    expect(alert.replaceAll("&#x27;", "'").replaceAll("&quot;", '"')).toMatch(message);
  }

  beforeAll(async () => {
    app = await createTestApp({ kind });
    for (const name of ["ada", "bola"] as const) {
      await buy(app, "pro-monthly", `${name}@example.com`);
      const cookie = await signedInCustomer(app, `${name}@example.com`);
      const [subscription] = await listOf(cookie);
      buyers[name] = { cookie, subscription: subscription! };
    }
  });
  afterAll(async () => {
    await app?.close();
  });

  it("sends a post without a customer session back to the sign-in form, and changes nothing", async () => {
    const before = await listOf(buyers.bola.cookie);
    for (const fields of changesOfBola()) {
      const response = await post(fields);
      expect(response.status, fields.intent).toBe(302);
      expect(response.headers.get("location"), fields.intent).toBe("/account");
      expect(response.headers.get("set-cookie"), fields.intent).toContain("flash=");
    }
    expect(await listOf(buyers.bola.cookie)).toEqual(before);
  });

  it("treats a staff session, whatever its role, as no customer: nothing changes", async () => {
    const before = await listOf(buyers.bola.cookie);
    for (const email of [STAFF_EMAIL, OTHER_STAFF_EMAIL]) {
      const staff = await createAccount(app, email);
      for (const fields of changesOfBola()) {
        const response = await post(fields, staff.cookie);
        expect(response.status, `${fields.intent} as ${email}`).toBe(302);
        expect(response.headers.get("location")).toBe("/account");
      }
    }
    expect(await listOf(buyers.bola.cookie)).toEqual(before);
  });

  it("refuses another customer's subscription or device as not found, like an unknown id", async () => {
    const before = await listOf(buyers.bola.cookie);
    for (const fields of changesOfBola()) {
      const theirs = await post(fields, buyers.ada.cookie);
      await expectRefused(theirs, 404, /There is no such (subscription|device) in your account\./);
      const unknown: Record<string, string> = { ...fields };
      for (const id of ["deviceId", "subscriptionId"]) if (id in unknown) unknown[id] = UNKNOWN_ID;
      await expectRefused(await post(unknown, buyers.ada.cookie), 404, /There is no such/);
    }
    expect(await listOf(buyers.bola.cookie)).toEqual(before);
  });

  it("answers bad input with a 4xx page that says why, never a 500, and changes nothing", async () => {
    const { cookie, subscription } = buyers.ada;
    const before = await listOf(cookie);
    const deviceId = subscription.devices[0]!.id;
    const cases: [Record<string, string>, number, RegExp | string][] = [
      [{ intent: "revoke-device", deviceId: "1 or 1=1" }, 400, /deviceId/],
      [{ intent: "add-device" }, 400, /subscriptionId/],
      [{ intent: "drop-everything", subscriptionId: subscription.id }, 400, /intent/],
      [{ intent: "cancel", subscriptionId: subscription.id, extra: "1" }, 400, /extra/],
      [{ intent: "rename-device", deviceId, name: "" }, 400, "Give the device a name."],
      [{ intent: "rename-device", deviceId, name: "x".repeat(1000) }, 400, "at most 40 characters"],
      [{ intent: "rename-device", deviceId, name: "\u202Eevil" }, 400, "control or formatting"],
      [{ intent: "move-device", deviceId, region: "r".repeat(5000) }, 400, "Choose one of the locations"],
      [{ intent: "change-plan", subscriptionId: subscription.id, planId: "free-forever" }, 400, /planId/],
    ];
    for (const [fields, status, message] of cases)
      await expectRefused(await post(fields, cookie), status, message);
    const huge = await post({ intent: "rename-device", deviceId, name: "x".repeat(100_000) }, cookie);
    await expectRefused(huge, 413, "The form is too large.");
    expect(await listOf(cookie)).toEqual(before);
  });

  it("shows a refused rename by its form, still open, when the page was on that step", async () => {
    const { cookie, subscription } = buyers.ada;
    const deviceId = subscription.devices[0]!.id;
    const step = `/account?${new URLSearchParams({ device: deviceId, step: "rename" })}`;
    const response = await post({ intent: "rename-device", deviceId, name: " " }, cookie, step);
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain('name="name"');
    expect(html.match(/Give the device a name\./g)?.length).toBeGreaterThanOrEqual(2);
  });

  it("applies a change of the customer's own and redirects back with what changed", async () => {
    const { cookie, subscription } = buyers.ada;
    const deviceId = subscription.devices[0]!.id;
    const renamed = await post({ intent: "rename-device", deviceId, name: "Ada's phone" }, cookie);
    expect(renamed.status).toBe(302);
    expect(renamed.headers.get("location")).toBe("/account");
    expect(readFlash(app.services, renamed.headers.get("set-cookie"))).toMatchObject({
      title: "Device renamed",
    });
    expect((await listOf(cookie))[0]!.devices[0]!.name).toBe("Ada's phone");

    const billing = await post({ intent: "billing", subscriptionId: subscription.id }, cookie);
    expect(billing.status).toBe(302);
    expect(billing.headers.get("location")).toBe("/account/billing");
  });

  it("refuses a form posted from another site, and changes nothing", async () => {
    const { cookie, subscription } = buyers.ada;
    const before = await listOf(cookie);
    const response = await app.request("/account", {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: "https://evil.example",
        cookie,
      },
      body: new URLSearchParams({ intent: "cancel", subscriptionId: subscription.id }).toString(),
    });
    expect(response.status).toBe(400);
    expect(await listOf(cookie)).toEqual(before);
  });

  it("still answers the sign-in form, which posts no change", async () => {
    const response = await post({ intent: "sign-in", email: "ada@example.com" });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('data-testid="sign-in-sent"');
  });
});
