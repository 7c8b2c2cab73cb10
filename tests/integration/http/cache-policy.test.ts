// Issue 25: `Cache-Control: private, no-store` on every staff and customer page, its `.data`
// answer and every account / admin API answer, whoever asks (the list comes from the route table,
// so a route added later is checked too); /metrics served at exactly /metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import routeConfig from "#app/routes.ts";
import { createTestApp, startTestServer, type TestApp, type TestServer } from "../../support/app.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { createAccount, STAFF_EMAIL } from "../../support/staff.ts";

interface RouteEntry {
  path?: string;
  children?: RouteEntry[];
}
const routePaths = (entries: readonly RouteEntry[]): string[] =>
  entries.flatMap((entry) => [
    ...(entry.path === undefined ? [] : [entry.path]),
    ...routePaths(entry.children ?? []),
  ]);

const ALL = routePaths(routeConfig as RouteEntry[]).map((path) => `/${path}`);
const PAGES = ALL.filter((path) => /^\/(admin|account)(\/|$)/.test(path));
const API = ALL.filter((path) => /^\/api\/(admin|account|blog-admin)\//.test(path));
const PRIVATE = "private, no-store";

/** A concrete address for a route pattern (ids that exist or not: the header must be there either way). */
const address = (pattern: string, ids: { subscriptionId: string }) =>
  pattern
    .replace(":subscriptionId", ids.subscriptionId)
    .replace(":id", ids.subscriptionId)
    .replace("*", "get-session");

describe("Cache-Control on staff and customer answers", () => {
  let app: TestApp;
  let staff: string;
  let customer: string;
  let subscriptionId: string;
  beforeAll(async () => {
    app = await createTestApp();
    staff = (await createAccount(app, STAFF_EMAIL)).cookie;
    await buy(app, "pro-monthly", "cache-buyer@example.com");
    customer = await signedInCustomer(app, "cache-buyer@example.com");
    const rows = (await app.services.db.query.subscriptions.findMany()) as Array<{ id: string }>;
    subscriptionId = rows[0]!.id;
  }, 240_000);
  afterAll(async () => {
    await app?.close();
  });

  it("finds the routes in the route table", () => {
    expect(PAGES).toEqual(
      expect.arrayContaining(["/admin", "/admin/servers", "/account", "/account/receipts/:subscriptionId"]),
    );
    expect(API.length).toBeGreaterThan(20);
  });

  it("sends private, no-store with every staff and customer page and its .data answer, signed in or not", async () => {
    for (const pattern of PAGES) {
      const path = address(pattern, { subscriptionId });
      for (const cookie of ["", staff, customer]) {
        for (const target of [path, `${path === "/" ? "/_root" : path}.data`]) {
          const response = await app.request(target, {
            redirect: "manual",
            headers: cookie ? { cookie } : {},
          });
          expect(
            response.headers.get("cache-control"),
            `${target} ${cookie ? "signed in" : "anonymous"}`,
          ).toBe(PRIVATE);
        }
      }
    }
  });

  it("sends private, no-store with every account, admin and auth API answer, refusals included", async () => {
    for (const pattern of [...API, "/api/auth/get-session", "/api/account/auth/get-session"]) {
      const path = address(pattern, { subscriptionId });
      for (const cookie of ["", staff, customer]) {
        const response = await app.request(path, { json: {}, headers: cookie ? { cookie } : {} });
        expect(response.headers.get("cache-control"), `${path}`).toBe(PRIVATE);
        const get = await app.request(path, { headers: cookie ? { cookie } : {} });
        expect(get.headers.get("cache-control"), `GET ${path}`).toBe(PRIVATE);
      }
    }
  });
});

describe("the real HTTP server's answers", () => {
  let server: TestServer;
  const TOKEN = "m".repeat(40);
  beforeAll(async () => {
    server = await startTestServer({ backgroundJobs: false, env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("carry private, no-store on staff and customer routes, and keep the page cache's public pages public", async () => {
    for (const path of [
      "/admin",
      "/admin/servers",
      "/admin/servers.data",
      "/account",
      "/account.data",
      "/api/admin/search",
    ]) {
      const response = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect(response.headers.get("cache-control"), path).toBe(PRIVATE);
    }
    const pricing = await fetch(`${server.url}/pricing`);
    expect(pricing.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
  });

  it("serve metrics at exactly /metrics, and nothing at /metrics/ or any other spelling", async () => {
    const authorization = `Bearer ${TOKEN}`;
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization } })).status).toBe(200);
    for (const path of ["/metrics/", "/METRICS", "/Metrics", "/metrics.data", "/metrics/?x=1"]) {
      const response = await fetch(`${server.url}${path}`, {
        headers: { authorization },
        redirect: "manual",
      });
      expect(response.status, path).not.toBe(200);
      expect(await response.text(), path).not.toContain("# HELP");
    }
  });
});
