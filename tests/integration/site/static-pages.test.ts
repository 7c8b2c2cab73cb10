// Decision 012: the static marketing pages rendered and compressed once, and the build's assets
// served from their build-time brotli / gzip variants. Against the real HTTP server.
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import routes from "#app/routes.ts";
import { staticPagePaths } from "#server/http/static-pages.ts";
import { startTestServer, type TestServer } from "../../support/app.ts";
import { MARKETING_PAGES } from "../../support/routes.ts";
import { rawGet } from "../../support/http.ts";

describe("static pages and precompressed assets", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backgroundJobs: false });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("knows the static pages from the routes' handles: the marketing pages and the 404 page, /pricing by sales state", async () => {
    // The page modules of app/routes.ts, shaped as the server build lists them.
    const pages = routes.filter((route) => route.file.endsWith(".tsx"));
    const build = {
      routes: Object.fromEntries(
        await Promise.all(
          pages.map(async (route) => [
            route.id ?? route.file,
            {
              id: route.id ?? route.file,
              parentId: "root",
              path: route.path,
              index: route.index,
              module: (await import(`../../../app/${route.file}`)) as { handle?: unknown },
            },
          ]),
        ),
      ),
    } as unknown as Parameters<typeof staticPagePaths>[0];
    // /pricing says whether orders are paused: kept per sales state, not for the process's life.
    expect(staticPagePaths(build).sort()).toEqual(
      [...MARKETING_PAGES.filter((path) => path !== "/pricing"), "/404"].sort(),
    );
    expect(staticPagePaths(build, "sales-state")).toEqual(["/pricing"]);
  });

  it.each(MARKETING_PAGES)(
    "%s is answered from memory, brotli or gzip, with the same page as identity",
    async (pathname) => {
      const identity = await rawGet(`${server.url}${pathname}`, { "accept-encoding": "identity" });
      expect(identity.status).toBe(200);
      expect(identity.headers["x-page-cache"]).toMatch(/^(hit|miss)$/);
      expect(identity.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(identity.headers["content-encoding"]).toBeUndefined();
      // The security headers still come with it.
      expect(identity.headers["content-security-policy"]).toContain("default-src 'self'");
      const br = await rawGet(`${server.url}${pathname}`, { "accept-encoding": "gzip, deflate, br" });
      expect(br.headers["content-encoding"]).toBe("br");
      expect(br.headers["x-page-cache"]).toBe("hit");
      expect(br.headers.vary).toContain("Accept-Encoding");
      expect(zlib.brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
      const gzip = await rawGet(`${server.url}${pathname}`, { "accept-encoding": "gzip" });
      expect(gzip.headers["content-encoding"]).toBe("gzip");
      expect(zlib.gunzipSync(gzip.body).equals(identity.body)).toBe(true);
      // Compressed once at the highest settings: smaller than the per-request fast setting.
      const fast = zlib.brotliCompressSync(identity.body, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 },
      });
      expect(br.body.length).toBeLessThan(fast.length);
    },
  );

  it("answers 304 to a matching If-None-Match", async () => {
    const first = await rawGet(`${server.url}/pricing`, { "accept-encoding": "br" });
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    expect(first.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    const again = await rawGet(`${server.url}/pricing`, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it("renders anything else as before: a query string, the 404 page, a hydrated page", async () => {
    for (const pathname of ["/pricing?utm_source=test", "/404", "/no/such/page", "/get-started"]) {
      const response = await rawGet(`${server.url}${pathname}`, { "accept-encoding": "br" });
      expect(response.headers["x-page-cache"], pathname).toBeUndefined();
      expect(response.status, pathname).toBe(
        pathname.includes("404") || pathname.includes("no/such") ? 404 : 200,
      );
    }
  });

  it("serves the build's assets from their brotli and gzip variants with the asset's own type", async () => {
    const html = (await rawGet(`${server.url}/`, { "accept-encoding": "identity" })).body.toString("utf8");
    const assets = [
      ...html.matchAll(/<link rel="stylesheet" href="(\/assets\/[^"]+)"/g),
      ...html.matchAll(/<script type="module" src="(\/assets\/[^"]+)"/g),
    ].map((match) => match[1]!);
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      const type = asset.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
      const identity = await rawGet(`${server.url}${asset}`, { "accept-encoding": "identity" });
      expect(identity.headers["content-type"], asset).toBe(type);
      // A policy applies to documents and workers: the stylesheet goes without, the script keeps it.
      expect(identity.headers["content-security-policy"] === undefined, asset).toBe(asset.endsWith(".css"));
      expect(identity.headers["x-content-type-options"], asset).toBe("nosniff");
      const br = await rawGet(`${server.url}${asset}`, { "accept-encoding": "gzip, deflate, br" });
      expect(br.headers["content-encoding"], asset).toBe("br");
      expect(br.headers["content-type"], asset).toBe(type);
      expect(br.headers["cache-control"], asset).toBe("public, max-age=31536000, immutable");
      expect(br.headers.vary, asset).toContain("Accept-Encoding");
      expect(zlib.brotliDecompressSync(br.body).equals(identity.body), asset).toBe(true);
      const gzip = await rawGet(`${server.url}${asset}`, { "accept-encoding": "gzip" });
      expect(gzip.headers["content-encoding"], asset).toBe("gzip");
      expect(zlib.gunzipSync(gzip.body).equals(identity.body), asset).toBe(true);
    }
  });
});
