// The console's search box and lists (issue 15, decision 076): POST /api/admin/search by each kind
// of key, pagination, refusals, and the /admin/orders and /admin/subscriptions pages.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutSessions, devices, subscriptions, type Device } from "#server/db/schema/index.ts";
import { ORDERS_PER_PAGE, type OrderPage } from "#server/domain/ops/order-search.ts";
import { buy } from "../../support/account.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { payWith, startCheckout } from "../../support/purchase.ts";
import { createAccount, queuedEmails, STAFF_EMAIL } from "../../support/staff.ts";

const BUYER = "search-buyer@example.com";

/** "fd66::2" written out in full and in capitals: the same address, not the same text. */
function longhandIpv6(address: string): string {
  const [head, tail] = address.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const zeros = Array.from({ length: 8 - left.length - right.length }, () => "0000");
  return [...left, ...zeros, ...right].map((group) => group.padStart(4, "0").toUpperCase()).join(":");
}

describe.each(databaseKinds)("staff search across orders and subscriptions, on %s", (kind) => {
  let app: TestApp;
  let adminCookie: string;
  let sessionId: string;
  let subscriptionId: string;
  let device: Device;
  let paymentReference: string;

  beforeAll(async () => {
    app = await createTestApp({ kind });
    adminCookie = (await createAccount(app, STAFF_EMAIL)).cookie;
    sessionId = await buy(app, "pro-monthly", BUYER);
    await buy(app, "unlock", "someone-else@example.com");
    const [row] = await app.services.db
      .select({ subscription: subscriptions, session: checkoutSessions, device: devices })
      .from(subscriptions)
      .innerJoin(checkoutSessions, eq(checkoutSessions.id, subscriptions.checkoutSessionId))
      .innerJoin(devices, eq(devices.subscriptionId, subscriptions.id))
      .where(eq(subscriptions.checkoutSessionId, sessionId));
    subscriptionId = row!.subscription.id;
    device = row!.device;
    paymentReference = row!.session.paymentReference!;
  });
  afterAll(async () => {
    await app?.close();
  });

  function search(body: unknown, cookie = adminCookie) {
    return app.request("/api/admin/search", { json: body, headers: { cookie } });
  }

  async function found(q: string, page = 1): Promise<OrderPage> {
    const response = await search({ q, page });
    expect(response.status, `search for ${q}`).toBe(200);
    return (await response.json()) as OrderPage;
  }

  it.each([
    ["the whole e-mail", () => BUYER],
    ["part of the e-mail, in other case", () => "SEARCH-BUY"],
    ["the checkout session id", () => sessionId],
    ["the payment reference", () => paymentReference],
    ["the subscription id", () => subscriptionId],
    ["the device's public key", () => device.publicKey],
    ["the device's IPv4 address", () => device.ipv4],
    ["the device's IPv6 address", () => device.ipv6],
    ["the device's IPv6 address written another way", () => longhandIpv6(device.ipv6)],
  ])("finds the order by %s", async (_kind, query) => {
    const page = await found(query());
    expect(page.total).toBe(1);
    expect(page.results[0]).toMatchObject({
      checkoutSessionId: sessionId,
      orderStatus: "paid",
      customerEmail: BUYER,
      planName: "Pro Monthly",
      paymentReference,
      subscription: { id: subscriptionId, status: "active", liveDevices: 1 },
    });
  });

  it("finds the order by the order number printed on its receipt, however it is typed", async () => {
    const receipt = (await queuedEmails(app, BUYER)).find((email) => email.kind === "receipt");
    const printed = /Order number:?\s*([0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4})/.exec(receipt?.text ?? "")?.[1];
    expect(printed, "the receipt e-mail prints an order number").toBeDefined();
    for (const q of [
      printed!,
      printed!.toLowerCase(),
      printed!.replace(/-/g, ""),
      printed!.replace(/-/g, " "),
    ]) {
      const page = await found(q);
      expect(page.total, q).toBe(1);
      expect(page.results[0]!.subscription).toMatchObject({ id: subscriptionId, orderNumber: printed });
    }
    // One character off is another order: nothing is found.
    const last = printed!.at(-1) === "0" ? "1" : "0";
    expect((await found(`${printed!.slice(0, -1)}${last}`)).total).toBe(0);
  });

  it("finds the order by the buyer's name from the details step, any word in any case and order", async () => {
    const started = await app.request("/api/create-checkout", {
      json: {
        planId: "basic-monthly",
        customerEmail: "named@example.org",
        customerName: "  Chiamaka   Okonkwo-Eze ",
      },
    });
    expect(started.status).toBe(200);
    const named = new URL(((await started.json()) as { url: string }).url).pathname.split("/").pop()!;
    expect((await payWith(app, named, "4242 4242 4242 4242")).status).toBe(302);
    for (const q of ["Chiamaka Okonkwo-Eze", "chiamaka", "OKONKWO", "okonkwo-eze chiamaka"]) {
      const page = await found(q);
      expect(page.total, q).toBe(1);
      expect(page.results[0], q).toMatchObject({
        checkoutSessionId: named,
        customerName: "Chiamaka Okonkwo-Eze",
        customerEmail: "named@example.org",
      });
    }
    for (const q of ["Chiamaka Obi", "Ada"]) expect((await found(q)).total, q).toBe(0);
    const refused = await app.request("/api/create-checkout", {
      json: { planId: "basic-monthly", customerEmail: "buyer@example.com", customerName: "x".repeat(202) },
    });
    expect(refused.status).toBe(400);
  });

  it("matches ids, keys and addresses exactly, and treats LIKE wildcards and quotes as text", async () => {
    for (const q of [
      sessionId.slice(0, -2),
      device.publicKey.slice(0, 20),
      device.ipv4.split(".").slice(0, 3).join("."),
      "%",
      "_",
      "' or '1'='1",
      "search\\buyer",
    ])
      expect((await found(q)).total, q).toBe(0);
  });

  it("pages results newest first, 20 a page, with the total", async () => {
    const emails = Array.from({ length: ORDERS_PER_PAGE + 3 }, (_, index) => `pager-${index}@example.com`);
    for (const email of emails) await startCheckout(app, "unlock", email);
    const first = await found("pager-");
    expect(first).toMatchObject({ total: emails.length, page: 1, pageSize: ORDERS_PER_PAGE, pages: 2 });
    expect(first.results).toHaveLength(ORDERS_PER_PAGE);
    expect(first.results[0]!.customerEmail).toBe(emails.at(-1));
    expect(first.results[0]!.orderStatus).toBe("open");
    expect(first.results[0]!.subscription).toBeNull();
    const second = await found("pager-", 2);
    expect(second.results.map((row) => row.customerEmail)).toEqual(emails.slice(0, 3).reverse());
    expect((await found("pager-", 3)).results).toEqual([]);
  });

  it("narrows a search to a list's filters", async () => {
    const response = await search({ q: "example.com", withSubscription: true, subscriptionStatus: "active" });
    const page = (await response.json()) as OrderPage;
    expect(page.results.map((row) => row.customerEmail).sort()).toEqual([BUYER, "someone-else@example.com"]);
  });

  it.each([
    ["no query", { page: 1 }],
    ["an empty query", { q: "   " }],
    ["a query over 200 characters", { q: "a".repeat(201) }],
    ["a query that is not text", { q: 42 }],
    ["page 0", { q: BUYER, page: 0 }],
    ["a page beyond 500", { q: BUYER, page: 501 }],
    ["an unknown status", { q: BUYER, orderStatus: "stolen" }],
  ])("refuses %s with a 400", async (_kind, body) => {
    const response = await search(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });

  async function page(path: string) {
    const response = await app.request(path, { headers: { cookie: adminCookie } });
    expect(response.status, path).toBe(200);
    return response.text();
  }

  it("lists paid orders at /admin/orders, each linking to its subscription, and searches without JavaScript", async () => {
    const paid = await page("/admin/orders");
    expect(paid).toContain(`href="/admin/subscriptions/${subscriptionId}"`);
    expect(paid).not.toContain("pager-0@example.com");
    expect(await page("/admin/orders?status=open&q=pager-0%40")).toContain("pager-0@example.com");

    const searched = await page(`/admin/orders?q=${encodeURIComponent(device.ipv4)}`);
    expect(searched).toContain("1 result");
    expect(searched).toContain(`href="/admin/subscriptions/${subscriptionId}"`);
    expect(searched).not.toContain("someone-else@example.com");
    expect(await page(`/admin/orders?status=all&q=pager-`)).toContain("Page 1 of 2");
  });

  it("lists subscriptions at /admin/subscriptions by status", async () => {
    await app.services.db
      .update(subscriptions)
      .set({ status: "refunded" })
      .where(eq(subscriptions.id, subscriptionId));
    try {
      const refunded = await page("/admin/subscriptions?status=refunded");
      expect(refunded).toContain(BUYER);
      expect(refunded).not.toContain("someone-else@example.com");
      const all = await page("/admin/subscriptions");
      expect(all).toContain("someone-else@example.com");
      expect(all).not.toContain("pager-0@example.com");
    } finally {
      await app.services.db
        .update(subscriptions)
        .set({ status: "active" })
        .where(eq(subscriptions.id, subscriptionId));
    }
  });

  it("answers a bad address on the list pages with a message, not an error", async () => {
    for (const path of [
      "/admin/orders?status=stolen",
      `/admin/subscriptions?q=${"x".repeat(300)}`,
      "/admin/orders?page=9999",
      "/admin/orders?page=abc",
    ]) {
      const html = await page(path);
      if (!path.endsWith("abc")) expect(html, path).toContain("This search is not valid");
    }
  });
});
