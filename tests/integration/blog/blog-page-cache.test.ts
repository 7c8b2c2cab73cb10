// Decisions 022 and 023: the O(1) freshness of the public blog outputs (trigger-maintained
// version row, next scheduled publication, PGlite change feed) and the page cache keeping them.
import type http from "node:http";
import zlib from "node:zlib";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows, type DatabaseHandle } from "#server/db/client.ts";
import { blogFingerprint, listAllVisiblePosts } from "#server/domain/blog/public.ts";
import { preferredEncoding } from "#server/http/encoding.ts";
import { startTestServer, type TestServer } from "../../support/app.ts";
import { HOUR_MS, insertPosts } from "../../support/blog.ts";
import { createTestDatabase, databaseKinds } from "../../support/database.ts";
import { rawGet } from "../../support/http.ts";
import { blogSource, servePageCache } from "../../support/page-cache.ts";

const version = async (handle: DatabaseHandle) =>
  Number(
    (
      await queryRows<{ version: string }>(
        handle.db,
        sql`select version::text as version from blog_posts_version`,
      )
    )[0]?.version,
  );

describe.each(databaseKinds)("the blog version and the page cache on %s", (kind) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("is bumped by every raw SQL insert, update (even without updated_at), delete and truncate, and not by a rollback", async () => {
    const start = await version(handle);
    await insertPosts(handle.db, [{ title: "One", slug: "one" }]);
    expect(await version(handle)).toBe(start + 1);
    const before = await blogFingerprint(handle.db);
    await handle.db.execute(sql`update blog_posts set content = 'changed' where slug = 'one'`);
    expect(await version(handle)).toBe(start + 2);
    expect((await blogFingerprint(handle.db)).digest).not.toBe(before.digest);
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`update blog_posts set content = 'rolled back' where slug = 'one'`);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await version(handle)).toBe(start + 2);
    await handle.db.execute(sql`delete from blog_posts where slug = 'one'`);
    expect(await version(handle)).toBe(start + 3);
    await handle.db.execute(sql`truncate blog_posts`);
    expect(await version(handle)).toBe(start + 4);
  });

  it("changes the fingerprint by itself when a scheduled post's time comes, and names that time", async () => {
    const due = new Date(Date.now() + 2 * HOUR_MS);
    await insertPosts(handle.db, [
      { title: "Old", slug: "old", publishedAt: new Date(Date.now() - HOUR_MS) },
      { title: "Scheduled", slug: "scheduled", publishedAt: due },
    ]);
    const now = await blogFingerprint(handle.db);
    expect(now.validUntil?.getTime()).toBe(due.getTime());
    const stillBefore = await blogFingerprint(handle.db, new Date(due.getTime() - 1));
    expect(stillBefore.digest).toBe(now.digest);
    const after = await blogFingerprint(handle.db, new Date(due.getTime()));
    expect(after.digest).not.toBe(now.digest);
    expect(after.validUntil).toBeNull();
    expect(after.lastModified?.getTime()).toBeGreaterThanOrEqual(due.getTime());
  });

  it("serves a raw SQL edit at once through the page cache's query path (no change feed)", async () => {
    await handle.db.execute(sql`truncate blog_posts`);
    await insertPosts(handle.db, [{ title: "Before", slug: "cached" }]);
    let renders = 0;
    const source = await blogSource(handle.db, kind);
    const cached = await servePageCache({
      sources: [{ ...source, changes: undefined }], // without the PGlite counter every request checks
      handle: async () => {
        renders += 1;
        const rows = await queryRows<{ title: string }>(handle.db, sql`select title from blog_posts`);
        return new Response(rows.map((row) => row.title).join(","), {
          headers: { "content-type": "text/plain" },
        });
      },
    });
    try {
      const url = `${cached.url}/blog/cached`;
      expect((await rawGet(url)).body.toString()).toBe("Before");
      expect((await rawGet(url)).headers["x-page-cache"]).toBe("hit");
      expect(renders).toBe(1);
      await handle.db.execute(sql`update blog_posts set title = 'After'`);
      const edited = await rawGet(url);
      expect(edited.body.toString()).toBe("After");
      expect(edited.headers["x-page-cache"]).toBe("miss");
    } finally {
      await cached.close();
      await source.close();
    }
  });

  it("shows a scheduled post when the clock passes its time, with no write in between", async () => {
    await handle.db.execute(sql`truncate blog_posts`);
    let clock = Date.now();
    const due = new Date(clock + 2 * HOUR_MS);
    await insertPosts(handle.db, [
      { title: "Old", slug: "old", publishedAt: new Date(clock - HOUR_MS) },
      { title: "Scheduled", slug: "scheduled", publishedAt: due },
    ]);
    let renders = 0;
    const source = await blogSource(handle.db, kind);
    const cached = await servePageCache({
      sources: [source],
      now: () => clock,
      handle: async () => {
        renders += 1;
        const posts = await listAllVisiblePosts(handle.db, new Date(clock));
        return new Response(posts.map((post) => post.slug).join(","));
      },
    });
    try {
      const before = await rawGet(`${cached.url}/blog`);
      expect(before.body.toString()).toBe("old");
      clock = due.getTime() - 1;
      expect((await rawGet(`${cached.url}/blog`)).headers["x-page-cache"]).toBe("hit");
      expect(renders).toBe(1);
      clock = due.getTime();
      const after = await rawGet(`${cached.url}/blog`);
      expect(after.headers["x-page-cache"]).toBe("miss");
      expect(after.body.toString()).toBe("scheduled,old");
      expect(after.headers.etag).not.toBe(before.headers.etag);
    } finally {
      await cached.close();
      await source.close();
    }
  });
});

describe("the rendered-page cache of the HTTP server (PGlite change feed)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backgroundJobs: false });
    await insertPosts(server.services.db, [
      { title: "Cached post", slug: "cached-post", publishedAt: new Date(Date.now() - HOUR_MS) },
    ]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("stores brotli and gzip variants that decompress to the same bytes, with Vary: Accept-Encoding", async () => {
    const url = `${server.url}/blog/cached-post`;
    const identity = await rawGet(url);
    expect(identity.status).toBe(200);
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(identity.headers["content-length"])).toBe(identity.body.length);

    const br = await rawGet(url, { "Accept-Encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers["x-page-cache"]).toBe("hit");
    expect(Number(br.headers["content-length"])).toBe(br.body.length);
    expect(zlib.brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    expect(br.body.length).toBeLessThan(identity.body.length / 2);

    const gzip = await rawGet(url, { "Accept-Encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gzip.body).equals(identity.body)).toBe(true);

    const refused = await rawGet(url, { "Accept-Encoding": "br;q=0, gzip;q=0" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(refused.body.equals(identity.body)).toBe(true);

    const notModified = await rawGet(url, { "If-None-Match": identity.headers.etag! });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.vary).toMatch(/accept-encoding/i);
  });

  it("answers a hit without any database query", async () => {
    const url = `${server.url}/blog/cached-post`;
    await rawGet(url);
    const client = (server.services.db as unknown as { $client: { query: (...args: unknown[]) => unknown } })
      .$client;
    const original = client.query;
    let queries = 0;
    client.query = (...args: unknown[]) => {
      queries += 1;
      return original.apply(client, args);
    };
    let hit;
    try {
      hit = await rawGet(url);
    } finally {
      client.query = original;
    }
    expect(hit.headers["x-page-cache"]).toBe("hit");
    expect(queries).toBe(0);
  });

  it("sends the same security headers on a cached page as on every answer it does not keep", async () => {
    // A page's policy also lists the hashes of its own inline scripts (decision 066).
    const withoutScriptHashes = (policy: string) => policy.replace(/ 'sha256-[\w+/=]+'/g, "");
    const security = (headers: http.IncomingHttpHeaders) =>
      Object.fromEntries(
        Object.entries(headers)
          .filter(([name]) =>
            /^(content-security-policy|cross-origin-|origin-agent-cluster|referrer-policy|strict-transport-security|x-(content-type-options|dns-prefetch-control|download-options|frame-options|permitted-cross-domain-policies|xss-protection|powered-by))/.test(
              name,
            ),
          )
          .map(([name, value]) => [
            name,
            name === "content-security-policy" ? withoutScriptHashes(String(value)) : value,
          ]),
      );
    await server.services.db.execute(sql`update blog_posts set title = 'Cached post, again'`);
    const miss = await rawGet(`${server.url}/blog/cached-post`);
    const hit = await rawGet(`${server.url}/blog/cached-post`);
    expect([miss.headers["x-page-cache"], hit.headers["x-page-cache"]]).toEqual(["miss", "hit"]);
    await rawGet(`${server.url}/pricing`);
    const staticHit = await rawGet(`${server.url}/pricing`);
    expect(staticHit.headers["x-page-cache"]).toBe("hit");
    const expected = security(hit.headers);
    expect(expected).toMatchObject({
      "content-security-policy": expect.stringContaining("default-src 'self'"),
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin",
      "x-frame-options": "SAMEORIGIN",
    });
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(10);
    const others = {
      "a cached page's first answer": miss,
      "a static page from the cache": staticHit,
      "a 404 page": await rawGet(`${server.url}/blog/no-such-post`),
      "a hydrated page": await rawGet(`${server.url}/get-started`),
      "the JSON API": await rawGet(`${server.url}/api/does-not-exist`),
      "a static file": await rawGet(`${server.url}/robots.txt`),
    };
    for (const [answer, response] of Object.entries(others)) {
      expect(security(response.headers), answer).toEqual(expected);
    }
  });
});

describe("choosing the stored encoding from Accept-Encoding", () => {
  it("prefers br when accepted at all, then gzip, and honours q=0 and *", () => {
    expect(preferredEncoding(undefined)).toBeUndefined();
    expect(preferredEncoding("gzip, deflate, br, zstd")).toBe("br");
    expect(preferredEncoding("gzip")).toBe("gzip");
    expect(preferredEncoding("br;q=0, gzip;q=0.5")).toBe("gzip");
    expect(preferredEncoding("br;q=0, gzip;q=0")).toBeUndefined();
    expect(preferredEncoding("identity")).toBeUndefined();
    expect(preferredEncoding("*")).toBe("br");
    expect(preferredEncoding("*;q=0, gzip")).toBe("gzip");
  });
});
