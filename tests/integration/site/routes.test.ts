import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { PAGE_ROUTES } from "../../support/routes.ts";

function visibleText(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");
}

/** The footer's links as [label, href], in order. */
function footerLinks(html: string): Array<[string, string]> {
  const footer = /<footer[\s\S]*?<\/footer>/.exec(html)?.[0] ?? "";
  return [...footer.matchAll(/<a [^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)].map(([, href, label]) => [
    visibleText(label!).trim(),
    href!,
  ]);
}

/** The footer of docs/product.md §2.2 in its order, then one's account (issue 14) and the reviews (issue 17). */
const FOOTER_LINKS: Array<[string, string]> = [
  ["Blog", "/blog"],
  ["Terms of Service", "/terms"],
  ["Privacy Policy", "/privacy"],
  ["Refund Policy", "/refund-policy"],
  ["Contact", "mailto:support@naijalink.example"],
  ["My account", "/account"],
  ["Reviews", "/reviews"],
];

describe("every route is server-rendered", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it("sends no staff address to the browser, on static, hydrated or admin pages", async () => {
    const staffAddresses = [...app.services.config.STAFF_ADMINS, ...app.services.config.STAFF_EDITORS];
    expect(staffAddresses.length).toBeGreaterThan(0);
    for (const path of ["/", "/get-started", "/blog", "/admin/login", "/admin/blog"]) {
      const html = await (await app.request(path)).text();
      for (const address of staffAddresses) expect(html, path).not.toContain(address);
    }
  });

  it.each(PAGE_ROUTES)(
    "$path answers 200 with its heading, the navigation and the footer in the HTML",
    async ({ path, heading }) => {
      const response = await app.request(path, { redirect: "manual" });
      const status = response.status;
      // Admin pages may send a signed-out visitor to the login page instead.
      if (path.startsWith("/admin/") && path !== "/admin/login" && status === 302) {
        expect(response.headers.get("location")).toMatch(/\/admin\/login|^\/$/);
        return;
      }
      expect(status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/text\/html/);
      const html = await response.text();
      const text = visibleText(html);
      if (typeof heading === "string") expect(text).toContain(heading);
      else expect(text).toMatch(heading);
      for (const navLabel of ["Pricing", "How It Works", "Tutorial", "Blog", "Contact", "Get Started"]) {
        expect(text).toContain(navLabel);
      }
      expect(text).toContain("Prices are in USD, Instant Config Delivery, 7-Day Guarantee");
      expect(text).toMatch(/© 2024/);
      expect(footerLinks(html)).toEqual(FOOTER_LINKS);
      expect(
        /<header[\s\S]*?<\/header>/.exec(html)?.[0],
        "the top navigation has no account link",
      ).not.toContain('href="/account"');
    },
  );

  it("answers an unknown path with the not-found page and status 404, and logs the path", async () => {
    const response = await app.request("/no/such/page");
    expect(response.status).toBe(404);
    const text = visibleText(await response.text());
    expect(text).toContain("Oops! Page not found");
    expect(text).toContain("Return to Home");
    expect(app.log.text).toContain("/no/such/page");
  });

  it("hands loaders the normalised URL of a client-side data request (the raw request passes through)", async () => {
    const response = await app.request("/no/such/page.data?_routes=catch-all");
    expect(response.status).toBe(404);
    const data = await response.text();
    expect(data).toContain('"/no/such/page"');
    expect(data).not.toContain("page.data");
    expect(app.log.text).toMatch(/"path":"\/no\/such\/page"/);
    expect(app.log.text).not.toContain("page.data");
  });

  it("renders the same not-found page at /404", async () => {
    const response = await app.request("/404");
    expect(response.status).toBe(404);
    expect(visibleText(await response.text())).toContain("Oops! Page not found");
  });

  it("reports liveness and database readiness", async () => {
    const health = await app.request("/healthz");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok", service: "naijalink" });
    const ready = await app.request("/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready", database: "pglite" });
  });

  it("answers unknown API paths with a JSON 404", async () => {
    const response = await app.request("/api/does-not-exist", { method: "POST", json: {} });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: "Not found",
      message: "There is no API endpoint at /api/does-not-exist.",
    });
  });

  it("serves robots.txt naming the sitemap", async () => {
    const response = await app.request("/robots.txt");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Sitemap: http://localhost:3000/sitemap.xml");
  });
});
