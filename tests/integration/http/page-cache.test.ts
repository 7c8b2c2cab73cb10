// Decision 023: what the page cache keeps, and what it leaves to the normal handler.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { staticPageSource } from "#server/http/static-pages.ts";
import { rawGet } from "../../support/http.ts";
import { servePageCache, type CachedApp } from "../../support/page-cache.ts";

describe("the page cache", () => {
  const renders: string[] = [];
  let answers: Record<string, () => Response>;
  let cached: CachedApp;
  beforeAll(async () => {
    answers = {
      "/kept": () => new Response("kept page", { headers: { "content-type": "text/html" } }),
      "/missing": () => new Response("not found page", { status: 404 }),
      "/no-store": () => new Response("failed list", { headers: { "cache-control": "no-store" } }),
      "/cookie": () => new Response("made a cookie", { headers: { "set-cookie": "flash=1" } }),
    };
    cached = await servePageCache({
      sources: [staticPageSource(Object.keys(answers))],
      handle: async (request) => {
        const path = new URL(request.url).pathname;
        renders.push(path);
        // Shared pages are rendered from the URL alone: no visitor's cookie reaches them.
        expect(request.headers.get("cookie")).toBeNull();
        await new Promise((resolve) => setImmediate(resolve));
        return answers[path]!();
      },
    });
  });
  afterAll(async () => {
    await cached?.close();
  });
  const get = (path: string, headers: Record<string, string> = {}) =>
    rawGet(`${cached.url}${path}`, { cookie: "session=visitor", ...headers });

  it("renders a page once for concurrent first requests and answers the rest from memory", async () => {
    const first = await Promise.all([get("/kept"), get("/kept"), get("/kept")]);
    const again = await get("/kept", { "accept-encoding": "br" });
    expect(renders.filter((path) => path === "/kept")).toEqual(["/kept"]);
    expect(first.map((answer) => answer.body.toString())).toEqual(Array(3).fill("kept page"));
    expect(again.headers["x-page-cache"]).toBe("hit");
    expect(again.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(again.headers["content-encoding"]).toBe("br");
    expect(again.headers.etag).toBe(first[0]!.headers.etag);
  });

  it("passes a 404 and a no-store answer on as rendered, and renders them again next time", async () => {
    for (const [path, status, body] of [
      ["/missing", 404, "not found page"],
      ["/no-store", 200, "failed list"],
    ] as const) {
      for (let request = 0; request < 2; request += 1) {
        const answer = await get(path, { "accept-encoding": "br" });
        expect(answer.status, path).toBe(status);
        expect(answer.body.toString(), path).toBe(body);
        expect(answer.headers["x-page-cache"], path).toBeUndefined();
        expect(answer.headers.etag, path).toBeUndefined();
      }
      expect(renders.filter((rendered) => rendered === path)).toHaveLength(2);
    }
  });

  it("leaves a render that sets a cookie to the normal handler, which answers the visitor's own request", async () => {
    const answer = await get("/cookie");
    expect(answer.status).toBe(404); // this test's "normal handler": Express's own 404
    expect(answer.headers["set-cookie"]).toBeUndefined();
  });

  it("leaves other paths, query strings and other methods to the normal handler", async () => {
    const before = renders.length;
    for (const path of ["/other", "/kept?utm_source=test"]) {
      expect((await get(path)).status, path).toBe(404);
    }
    const post = await fetch(`${cached.url}/kept`, { method: "POST" });
    expect(post.status).toBe(404);
    expect(renders.length).toBe(before);
  });
});

describe("a page source whose change counter may lag a change (notifications on PostgreSQL)", () => {
  it("answers on the counter alone for recheckAfterMs after a version check, then checks again", async () => {
    let clock = 1_000_000;
    let digest = "v1";
    let versionChecks = 0;
    const changes = { count: 0 };
    const cached = await servePageCache({
      now: () => clock,
      sources: [
        {
          key: (target) => (target === "/page" ? target : undefined),
          version: async () => {
            versionChecks += 1;
            return { digest, validUntil: null };
          },
          changes,
          recheckAfterMs: 1_000,
        },
      ],
      handle: async () => new Response(`page ${digest}`, { headers: { "content-type": "text/html" } }),
    });
    try {
      const page = () => rawGet(`${cached.url}/page`);
      expect((await page()).body.toString()).toBe("page v1");
      digest = "v2"; // committed elsewhere; its notification has not arrived
      clock += 999;
      const early = await page();
      expect([early.headers["x-page-cache"], early.body.toString(), versionChecks]).toEqual([
        "hit",
        "page v1",
        1,
      ]);
      clock += 1;
      const late = await page();
      expect([late.headers["x-page-cache"], late.body.toString(), versionChecks]).toEqual([
        "miss",
        "page v2",
        2,
      ]);
      changes.count += 1; // a notification: the next request checks at once
      await page();
      expect(versionChecks).toBe(3);
    } finally {
      await cached.close();
    }
  });
});
