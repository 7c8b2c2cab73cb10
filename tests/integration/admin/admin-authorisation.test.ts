// The authorisation matrix of the staff console (issue 15), generated from the route table: every
// /api/admin/* and /api/blog-admin/* endpoint and every /admin/* page, as each kind of caller.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import routeConfig from "#app/routes.ts";
import { queryRows } from "#server/db/client.ts";
import {
  streamingServices,
  VPN_SERVER_STATUSES,
  vpnServers,
  type VpnServerStatus,
} from "#server/db/schema/index.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { tableDigests } from "../../support/table-digest.ts";
import { addTestVpnServer } from "../../support/vpn.ts";
import { createAccount, OTHER_STAFF_EMAIL, STAFF_EMAIL } from "../../support/staff.ts";

interface RouteEntry {
  path?: string;
  children?: RouteEntry[];
}

function routePaths(entries: readonly RouteEntry[]): string[] {
  return entries.flatMap((entry) => [
    ...(entry.path === undefined ? [] : [entry.path]),
    ...routePaths(entry.children ?? []),
  ]);
}

const ALL_PATHS = routePaths(routeConfig as RouteEntry[]);
const STAFF_API = ALL_PATHS.filter((path) => /^api\/(admin|blog-admin)\//.test(path)).map(
  (path) => `/${path}`,
);
const STAFF_PAGES = ALL_PATHS.filter((path) => /^admin(\/|$)/.test(path) && path !== "admin/login").map(
  (path) => `/${path}`,
);
const isBlog = (path: string) => path.startsWith("/api/blog-admin/") || path.startsWith("/admin/blog");

/** What the matrix needs: objects to point ids at. */
interface Fixture {
  app: TestApp;
  postId: string;
  subscriptionId: string;
  customerEmail: string;
  /** A contact message the customer sent through the form. */
  messageId: string;
  /** A subscription and its device 1 of its own for each destructive action, by endpoint. */
  own: Record<string, { subscriptionId: string; deviceId: string }>;
  /** A VPN server in each status, for the server actions (each is called once, in any order). */
  serverIds: Record<VpnServerStatus, string>;
  /** A streaming service to remove. */
  streamingServiceId: string;
}

/** Endpoints that end or change what they touch: each gets a freshly bought subscription. */
const OWN_FIXTURE_ENDPOINTS = [
  "/api/admin/subscriptions/cancel",
  "/api/admin/subscriptions/refund",
  "/api/admin/subscriptions/reactivate",
  "/api/admin/devices/revoke",
  "/api/admin/devices/rekey",
  "/api/admin/devices/resend-config",
  "/api/admin/subscriptions/change-plan",
];
const own = (fixture: Partial<Fixture>, path: string) => fixture.own?.[path];
const REASON = "authorisation matrix";

/**
 * A request each endpoint accepts from an admin (2xx). Every endpoint in the route table needs one:
 * a new endpoint without an entry fails the first test below.
 */
const ADMIN_REQUESTS: Record<string, (fixture: Partial<Fixture>) => unknown> = {
  "/api/blog-admin/list": () => ({}),
  "/api/blog-admin/create": () => ({
    title: "Matrix post",
    slug: `matrix-${Date.now()}`,
    content: "Hello",
    author: "NaijaLink Team",
    status: "draft",
    published_at: null,
  }),
  "/api/blog-admin/update": ({ postId }) => ({ id: postId, status: "published" }),
  "/api/blog-admin/delete": ({ postId }) => ({ id: postId, restore: true }),
  "/api/admin/audit-log": () => ({ limit: 10 }),
  "/api/admin/messages": () => ({ status: "new", page: 1 }),
  "/api/admin/messages/status": ({ messageId }) => ({
    id: messageId,
    status: "answered",
    reason: "Replied by e-mail",
  }),
  "/api/admin/dashboard": () => ({}),
  "/api/admin/search": ({ customerEmail }) => ({ q: customerEmail, page: 1 }),
  // A form (the export is a download a plain <form> asks for).
  "/api/admin/export": () => new URLSearchParams({ kind: "orders", from: "2026-01-01", to: "2026-12-31" }),
  "/api/admin/subscriptions/extend": ({ subscriptionId }) => ({ subscriptionId, days: 1, reason: REASON }),
  "/api/admin/subscriptions/cancel": (fixture) => ({
    subscriptionId: own(fixture, "/api/admin/subscriptions/cancel")?.subscriptionId,
    when: "now",
    reason: REASON,
  }),
  "/api/admin/subscriptions/refund": (fixture) => ({
    subscriptionId: own(fixture, "/api/admin/subscriptions/refund")?.subscriptionId,
    reason: REASON,
  }),
  "/api/admin/subscriptions/reactivate": (fixture) => ({
    subscriptionId: own(fixture, "/api/admin/subscriptions/reactivate")?.subscriptionId,
    reason: REASON,
  }),
  "/api/admin/subscriptions/change-plan": (fixture) => ({
    subscriptionId: own(fixture, "/api/admin/subscriptions/change-plan")?.subscriptionId,
    planId: "pro-yearly",
    reason: REASON,
  }),
  "/api/admin/devices/revoke": (fixture) => ({
    deviceId: own(fixture, "/api/admin/devices/revoke")?.deviceId,
    reason: REASON,
  }),
  "/api/admin/devices/rekey": (fixture) => ({
    deviceId: own(fixture, "/api/admin/devices/rekey")?.deviceId,
    reason: REASON,
  }),
  "/api/admin/devices/resend-config": (fixture) => ({
    deviceId: own(fixture, "/api/admin/devices/resend-config")?.deviceId,
    reason: REASON,
  }),
  "/api/admin/servers/add": () => ({
    name: "ng-matrix-added",
    endpoint: "203.0.113.90:51820",
    ipv4: "10.90.0.0/24",
    ipv6: "fd90::/64",
    reason: "matrix check",
  }),
  "/api/admin/servers/rotate-token": ({ serverIds }) => ({
    serverId: serverIds?.active,
    reason: "matrix check",
  }),
  "/api/admin/servers/set-endpoint": ({ serverIds }) => ({
    serverId: serverIds?.active,
    endpoint: "203.0.113.91:51820",
    reason: "matrix check",
  }),
  "/api/admin/servers/drain": ({ serverIds }) => ({ serverId: serverIds?.active, reason: "matrix check" }),
  "/api/admin/servers/move-devices": ({ serverIds }) => ({
    serverId: serverIds?.draining,
    reason: "matrix check",
  }),
  "/api/admin/servers/disable": ({ serverIds }) => ({
    serverId: serverIds?.draining,
    reason: "matrix check",
  }),
  "/api/admin/servers/enable": ({ serverIds }) => ({ serverId: serverIds?.disabled, reason: "matrix check" }),
  "/api/admin/streaming-services/add": () => ({
    name: "Matrix TV",
    url: "https://tv.example.com/ng/",
    reason: "matrix check",
  }),
  "/api/admin/streaming-services/remove": ({ streamingServiceId }) => ({
    serviceId: streamingServiceId,
    reason: "matrix check",
  }),
};

/** A concrete address for each page route with parameters. */
const PAGE_ADDRESSES: Record<string, (fixture: Fixture) => string> = {
  "/admin/blog/edit/:id": ({ postId }) => `/admin/blog/edit/${postId}`,
  "/admin/subscriptions/:id": ({ subscriptionId }) => `/admin/subscriptions/${subscriptionId}`,
};

type Caller = "anonymous" | "customer" | "unverifiedStaff" | "editor" | "admin";

describe("staff console authorisation matrix", () => {
  let app: TestApp;
  let fixture: Fixture;
  const cookies = {} as Record<Caller, string>;

  const snapshot = () => tableDigests(app.services.db);

  function call(caller: Caller, path: string, body: unknown) {
    const headers: Record<string, string> = cookies[caller] ? { cookie: cookies[caller] } : {};
    if (!(body instanceof URLSearchParams)) return app.request(path, { json: body, headers });
    headers["content-type"] = "application/x-www-form-urlencoded";
    return app.request(path, { method: "POST", headers, body: body.toString() });
  }

  function page(caller: Caller, path: string) {
    return app.request(path, {
      redirect: "manual",
      headers: cookies[caller] ? { cookie: cookies[caller] } : {},
    });
  }

  beforeAll(async () => {
    app = await createTestApp();
    cookies.anonymous = "";
    cookies.admin = (await createAccount(app, STAFF_EMAIL)).cookie;
    cookies.editor = (await createAccount(app, OTHER_STAFF_EMAIL)).cookie;
    const unverified = "late-admin@naijalink.example";
    // A second admin address whose confirmation no longer holds: a live session the server must refuse.
    (app.config.STAFF_ADMINS as string[]).push(unverified);
    cookies.unverifiedStaff = (await createAccount(app, unverified)).cookie;
    await app.services.db.execute(sql`update "user" set email_verified = false where email = ${unverified}`);
    const customerEmail = "matrix-buyer@example.com";
    const sessionId = await buy(app, "pro-monthly", customerEmail);
    cookies.customer = await signedInCustomer(app, customerEmail);
    const [subscription] = await queryRows<{ id: string }>(
      app.services.db,
      sql`select id from subscriptions where checkout_session_id = ${sessionId}`,
    );
    const owned: Fixture["own"] = {};
    for (const [index, path] of OWN_FIXTURE_ENDPOINTS.entries()) {
      const ownSession = await buy(app, "pro-monthly", `matrix-own-${index}@example.com`);
      const [row] = await queryRows<{ subscriptionId: string; deviceId: string }>(
        app.services.db,
        sql`select s.id as "subscriptionId", d.id as "deviceId" from subscriptions s join devices d on d.subscription_id = s.id where s.checkout_session_id = ${ownSession}`,
      );
      owned[path] = row!;
    }
    const cancelled = owned["/api/admin/subscriptions/reactivate"]!.subscriptionId;
    const cancel = await call("admin", "/api/admin/subscriptions/cancel", {
      subscriptionId: cancelled,
      when: "now",
      reason: REASON,
    });
    expect(cancel.status).toBe(200);
    const created = await call(
      "admin",
      "/api/blog-admin/create",
      ADMIN_REQUESTS["/api/blog-admin/create"]!({}),
    );
    const { post } = (await created.json()) as { post: { id: string } };
    const serverIds = {} as Record<VpnServerStatus, string>;
    for (const [index, status] of VPN_SERVER_STATUSES.entries()) {
      const server = await addTestVpnServer(app.services.db, {
        name: `ng-matrix-${status}`,
        octet: 91 + index,
      });
      await app.services.db.update(vpnServers).set({ status }).where(eq(vpnServers.id, server.id));
      serverIds[status] = server.id;
    }
    const [streamingService] = await app.services.db
      .insert(streamingServices)
      .values({ name: "Matrix removed", url: "https://removed.example.com/" })
      .returning();
    const contact = { name: "Matrix Buyer", email: customerEmail, subject: "Help", message: "My config?" };
    expect((await app.request("/api/send-contact-email", { json: contact })).status).toBe(200);
    const [message] = await queryRows<{ id: string }>(app.services.db, sql`select id from contact_messages`);
    fixture = {
      app,
      postId: post.id,
      subscriptionId: subscription!.id,
      customerEmail,
      messageId: message!.id,
      own: owned,
      serverIds,
      streamingServiceId: streamingService!.id,
    };
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it("knows a request for every staff endpoint and an address for every page with parameters", () => {
    expect(STAFF_API.length).toBeGreaterThan(4);
    expect(STAFF_API.filter((path) => !ADMIN_REQUESTS[path])).toEqual([]);
    expect(STAFF_PAGES.filter((path) => path.includes(":") && !PAGE_ADDRESSES[path])).toEqual([]);
  });

  it("refuses every staff endpoint to anyone but staff of the right role, changing no row", async () => {
    const before = await snapshot();
    const expected: Record<Exclude<Caller, "admin">, (path: string) => number> = {
      anonymous: () => 401,
      customer: () => 403,
      unverifiedStaff: () => 403,
      editor: (path) => (isBlog(path) ? 0 : 403),
    };
    for (const path of STAFF_API) {
      const body = ADMIN_REQUESTS[path]!(fixture);
      for (const caller of ["anonymous", "customer", "unverifiedStaff", "editor"] as const) {
        const status = expected[caller](path);
        if (!status) continue;
        const response = await call(caller, path, body);
        expect(response.status, `${path} as ${caller}`).toBe(status);
        const error = (await response.json()) as { error?: unknown; message?: unknown };
        expect(typeof error.error, `${path} as ${caller}`).toBe("string");
        expect(typeof error.message, `${path} as ${caller}`).toBe("string");
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it("lets an admin call every staff endpoint, and an editor the blog ones", async () => {
    for (const path of STAFF_API) {
      const response = await call("admin", path, ADMIN_REQUESTS[path]!(fixture));
      expect(response.status, `${path} as admin: ${await response.clone().text()}`).toBeLessThan(300);
      if (isBlog(path) && path.endsWith("/list")) expect((await call("editor", path, {})).status).toBe(200);
    }
  });

  it("serves every admin page to admins only, the blog pages to editors, and turns the rest away", async () => {
    for (const route of STAFF_PAGES) {
      const path = PAGE_ADDRESSES[route]?.(fixture) ?? route;
      const anonymous = await page("anonymous", path);
      expect(anonymous.status, `${path} signed out`).toBe(302);
      expect(anonymous.headers.get("location"), `${path} signed out`).toMatch(/^\/(admin\/login)?$/);
      for (const caller of ["customer", "unverifiedStaff"] as const) {
        const response = await page(caller, path);
        expect(response.status, `${path} as ${caller}`).toBe(302);
        expect(response.headers.get("location"), `${path} as ${caller}`).toBe("/");
      }
      const editor = await page("editor", path);
      expect(editor.status, `${path} as editor`).toBe(isBlog(path) ? 200 : 403);
      if (!isBlog(path)) expect(await editor.text()).toContain("Not available to your role");
      expect((await page("admin", path)).status, `${path} as admin`).toBe(200);
    }
  });

  it("shows an editor only the Blog section and an admin every section", async () => {
    const nav = async (caller: Caller) => {
      const html = await (await page(caller, "/admin/blog")).text();
      const block = /<nav aria-label="Admin"[^]*?<\/nav>/.exec(html)?.[0] ?? "";
      return [...block.matchAll(/<a [^>]*>([^<]+)<\/a>/g)].map((match) => match[1]);
    };
    expect(await nav("editor")).toEqual(["Blog"]);
    expect(await nav("admin")).toEqual([
      "Dashboard",
      "Orders",
      "Subscriptions",
      "Servers",
      "Messages",
      "Blog",
      "Audit log",
    ]);
  });
});
