// Decision 066: no 'unsafe-inline' for scripts. Every page answer carries one policy that allows
// exactly the inline scripts of its own HTML (by their sha256), whichever way it is answered:
// rendered, kept by the page cache (a miss, a hit, a compressed variant), or not kept (a 404).
// Against the real HTTP server, so helmet, the page cache and Express's adapter all take part.
import crypto from "node:crypto";
import type http from "node:http";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../support/app.ts";
import { insertPosts } from "../../support/blog.ts";
import { rawGet } from "../../support/http.ts";

const POST_SLUG = "a-post-under-the-policy";

/** The source list of the policy's `script-src` (not `script-src-attr` or `-elem`). */
function scriptSources(policy: string): string[] {
  const directive = policy
    .split(";")
    .map((part) => part.trim().split(/\s+/))
    .find(([name]) => name === "script-src");
  return directive?.slice(1) ?? [];
}

/** The text of every `<script>` without a `src`, as the browser's HTML parser reads it. */
function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)]
    .filter(([, attributes]) => !/(^|\s)src\s*=/i.test(attributes ?? ""))
    .map(([, , text]) => text ?? "");
}

const sha256Source = (text: string) =>
  `'sha256-${crypto.createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** The answer's one policy: a second one, as its own header or joined to the first, would be enforced too. */
function policyOf(headers: http.IncomingHttpHeaders): string {
  const policies = [headers["content-security-policy"] ?? []].flat();
  expect(policies).toHaveLength(1);
  expect(policies[0]!.match(/(^|[;,]\s*)default-src /g), "one policy").toHaveLength(1);
  return policies[0]!;
}

/** No inline allowance, and every inline script of the page listed by its hash. */
function expectEveryInlineScriptAllowed(answer: { headers: http.IncomingHttpHeaders }, html: string) {
  const policy = policyOf(answer.headers);
  const sources = scriptSources(policy);
  expect(sources).toContain("'self'");
  expect(sources).not.toContain("'unsafe-inline'");
  expect(sources.filter((source) => source !== "'self'" && !source.startsWith("'sha256-"))).toEqual([]);
  const scripts = inlineScripts(html);
  for (const script of scripts) expect(sources, script.slice(0, 80)).toContain(sha256Source(script));
  return scripts;
}

async function page(url: string, expectedStatus = 200) {
  const answer = await rawGet(url, { "accept-encoding": "identity" });
  expect(answer.status, url).toBe(expectedStatus);
  expect(answer.headers["content-type"], url).toMatch(/^text\/html/);
  return { ...answer, html: answer.body.toString("utf8") };
}

describe("the Content-Security-Policy of every kind of page", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backgroundJobs: false });
    await insertPosts(server.services.db, [{ title: "A post under the policy", slug: POST_SLUG }]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each([
    ["a marketing page (static, from the page cache)", "/", 200],
    ["a legal page (static, from the page cache)", "/terms", 200],
    ["the purchase steps (hydrated)", "/get-started", 200],
    ["the details step", "/get-started/details", 200],
    ["the payment step", "/get-started/payment", 200],
    ["the success page without a session", "/payment-success", 200],
    ["the staff sign-in page", "/admin/login", 200],
    ["the 404 page", "/no/such/page", 404],
    ["a blog 404 (rendered by the page cache, not kept)", "/blog/no-such-post", 404],
  ])("%s: %s", async (_kind, path, status) => {
    const answer = await page(`${server.url}${path}`, status);
    expectEveryInlineScriptAllowed(answer, answer.html);
  });

  it("allows a hydrated page's React Router scripts by hash, and a static page has none to allow", async () => {
    const hydrated = await page(`${server.url}/get-started`);
    const scripts = expectEveryInlineScriptAllowed(hydrated, hydrated.html);
    expect(scripts.some((script) => script.includes("window.__reactRouterContext ="))).toBe(true);
    expect(scripts.some((script) => script.includes("window.__reactRouterRouteModules"))).toBe(true);

    const marketing = await page(`${server.url}/pricing`);
    expect(expectEveryInlineScriptAllowed(marketing, marketing.html)).toEqual([]);
    expect(scriptSources(policyOf(marketing.headers))).toEqual(["'self'"]);
  });

  it("gives a cached blog post, on its first answer, from memory and compressed, the hashes of its own scripts", async () => {
    const url = `${server.url}/blog/${POST_SLUG}`;
    const first = await page(url);
    const again = await page(url);
    expect([first.headers["x-page-cache"], again.headers["x-page-cache"]]).toEqual(["miss", "hit"]);
    const scripts = expectEveryInlineScriptAllowed(first, first.html);
    // No React on a blog page's first visit (decision 085): its one inline script is the JSON-LD.
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toContain('"@type":"BlogPosting"');
    expectEveryInlineScriptAllowed(again, again.html);
    expect(again.headers["content-security-policy"]).toBe(first.headers["content-security-policy"]);

    const br = await rawGet(url, { "accept-encoding": "br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expectEveryInlineScriptAllowed(br, zlib.brotliDecompressSync(br.body).toString("utf8"));
    const gzip = await rawGet(url, { "accept-encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expectEveryInlineScriptAllowed(gzip, zlib.gunzipSync(gzip.body).toString("utf8"));

    const list = await page(`${server.url}/blog`);
    expect(expectEveryInlineScriptAllowed(list, list.html)).toEqual([]);
  });

  it("allows the scripts of the built-in test checkout and of the success page after paying", async () => {
    const created = await fetch(`${server.url}/api/create-checkout`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ planId: "unlock", customerEmail: "policy@example.com" }),
    });
    expect(created.status).toBe(200);
    const checkoutPath = new URL(((await created.json()) as { url: string }).url).pathname;

    const checkout = await page(`${server.url}${checkoutPath}`);
    expect(expectEveryInlineScriptAllowed(checkout, checkout.html).length).toBeGreaterThan(1);

    const paid = await fetch(`${server.url}${checkoutPath}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ cardNumber: "4242 4242 4242 4242", expiry: "12/34", cvc: "123" }),
    });
    expect(paid.status).toBe(302);
    const location = paid.headers.get("location")!;
    expect(location).toMatch(/^\/payment-success\?session_id=cs_test_/);
    const success = await page(`${server.url}${location}`);
    expectEveryInlineScriptAllowed(success, success.html);
  });
});
