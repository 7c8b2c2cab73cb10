// HTTP caching for the public blog outputs (list, post, sitemap, feed); decisions 021 and 022.
//
// Two layers share one validator:
// 1. Every route computes an ETag from `blogFingerprint` (the trigger-maintained version of
//    blog_posts and the next scheduled publication), the build and the public config (root
//    loader data is part of every page), and answers 304 to a matching If-None-Match.
// 2. In the Express host, `createPublicPageCache` keeps the rendered bytes of those URLs (and
//    their brotli/gzip variants) and serves them while nothing changed: on PGlite without any
//    query (a NOTIFY counter), on PostgreSQL after one O(1) query.
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import crypto from "node:crypto";
import fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import type { DatabaseKind, Executor } from "#server/db/client.ts";
import { blogFingerprint, type BlogFingerprint } from "./public.ts";

/** Shared caches and browsers may keep a copy but must revalidate it: a post edit shows at once. */
export const PUBLIC_CACHE_CONTROL = "public, max-age=0, must-revalidate";

let buildIdentity: string | undefined;
/**
 * A hash of the code that is running (the server bundle embeds the client asset manifest),
 * so a deploy changes every ETag even when no post changed. Same value in every process of
 * one deploy, unlike a start time.
 */
function currentBuildIdentity(): string {
  if (buildIdentity === undefined) {
    try {
      buildIdentity = crypto
        .createHash("sha1")
        .update(fs.readFileSync(fileURLToPath(import.meta.url)))
        .digest("hex")
        .slice(0, 12);
    } catch {
      buildIdentity = crypto.randomBytes(6).toString("hex");
    }
  }
  return buildIdentity;
}

export interface CacheHeaders {
  etag: string;
  headers: Record<string, string>;
}

/** ETag (weak: compression changes the bytes), Last-Modified and Cache-Control for one output. */
export function validatorsFor(
  fingerprint: BlogFingerprint,
  variant: { kind: string; publicConfig?: unknown },
): CacheHeaders {
  const hash = crypto
    .createHash("sha1")
    .update(
      JSON.stringify([
        fingerprint.digest,
        variant.kind,
        variant.publicConfig ?? null,
        currentBuildIdentity(),
      ]),
    )
    .digest("base64url")
    .slice(0, 27);
  const etag = `W/"${hash}"`;
  const headers: Record<string, string> = { ETag: etag, "Cache-Control": PUBLIC_CACHE_CONTROL };
  if (fingerprint.lastModified) headers["Last-Modified"] = fingerprint.lastModified.toUTCString();
  return { etag, headers };
}

export async function publicCacheHeaders(
  db: Executor,
  variant: { kind: string; publicConfig?: unknown },
): Promise<CacheHeaders> {
  return validatorsFor(await blogFingerprint(db), variant);
}

/** RFC 9110 §13.1.2: weak comparison, a list of tags, or `*`. */
export function matchesIfNoneMatch(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const wanted = opaque(etag);
  return header.split(",").some((tag) => opaque(tag) === wanted);
}

/** Paths whose bytes depend only on the blog fingerprint, the build and the config. */
const CACHEABLE_PATH = /^\/(?:blog|blog\/rss\.xml|blog\/[a-z0-9][a-z0-9-]*|sitemap\.xml|api\/sitemap)$/;

function cacheKey(request: ExpressRequest): string | undefined {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  // The pattern admits only plain path characters, so a match is already the normalised path.
  if (CACHEABLE_PATH.test(request.originalUrl)) return request.originalUrl;
  const url = new URL(request.originalUrl, "http://local");
  if (!CACHEABLE_PATH.test(url.pathname)) return undefined;
  const params = [...url.searchParams.keys()];
  if (params.length === 0) return url.pathname;
  if (url.pathname === "/blog" && params.length === 1 && params[0] === "page")
    return `${url.pathname}${url.search}`;
  return undefined;
}

/** The encodings a cached page is kept in, best first (the compression middleware's preference). */
const ENCODINGS = ["br", "gzip"] as const;
type Encoding = (typeof ENCODINGS)[number];

type Stamp = Pick<CachedPage, "digest" | "changes" | "validUntil">;

interface CachedPage {
  /** The fingerprint digest the page was rendered under; a hit needs the current one to match. */
  digest: string;
  /** The change feed's counter read before that fingerprint, and when the page expires by itself. */
  changes: number | undefined;
  validUntil: number;
  status: number;
  /** Response headers except the ones describing the body (set per variant on sending). */
  headers: Array<[string, string]>;
  etag: string | null;
  /** The rendered body and its compressed variants, computed once per render. */
  bodies: { identity: Buffer } & Record<Encoding, Buffer | undefined>;
}

/** Compresses once at high settings off the main thread: every hit then sends the bytes as they are. */
export async function compressVariants(body: Buffer): Promise<Record<Encoding, Buffer>> {
  const [br, gzip] = await Promise.all([
    promisify(zlib.brotliCompress)(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
    promisify(zlib.gzip)(body, { level: 9 }),
  ]);
  return { br, gzip };
}

export interface PublicPageCacheOptions {
  db: Executor;
  /** The app's Fetch handler (React Router with the request context). */
  handle: (request: Request, clientIp: string) => Promise<Response>;
  maxEntries?: number;
  /** Fingerprint source, for tests; defaults to `blogFingerprint(db)`. */
  fingerprint?: () => Promise<BlogFingerprint>;
  /**
   * A counter of committed writes to blog_posts seen by this process (`watchBlogChanges`).
   * With it, a hit needs no query while the counter and the page's deadline hold.
   */
  changes?: BlogChangeFeed;
  /**
   * Headers `serveFresh` adds to a hit, for mounting it before the middleware that would
   * otherwise set them (the host's security headers, recorded once).
   */
  hitHeaders?: ReadonlyArray<readonly [string, string]>;
}

export const BLOG_CHANGES_CHANNEL = "blog_posts_changed";

export interface BlogChangeFeed {
  /** Bumped by every committed statement that wrote blog_posts. */
  readonly changes: number;
}

/**
 * On PGlite the database is one in-process session that every write goes through, and the
 * trigger's NOTIFY (sent at commit) is delivered while the COMMIT's answer is parsed, before
 * the writing call returns: a counter of notifications is then an exact, query-free freshness
 * signal. On PostgreSQL, writers on other connections or processes are notified asynchronously,
 * so there is no feed and every request checks the version row (decision 022).
 */
export async function watchBlogChanges(
  db: Executor,
  kind: DatabaseKind,
): Promise<BlogChangeFeed | undefined> {
  if (kind !== "pglite") return undefined;
  const client = (db as unknown as { $client?: Pick<PGlite, "listen"> }).$client;
  if (!client || typeof client.listen !== "function") return undefined;
  const feed = { changes: 0 };
  await client.listen(BLOG_CHANGES_CHANNEL, () => {
    feed.changes += 1;
  });
  return feed;
}

/**
 * Express middleware serving rendered public blog outputs from memory while the blog
 * fingerprint is unchanged (decisions 021, 022). The fingerprint is one O(1) query (the
 * trigger-maintained version row and the next scheduled publication). Concurrent requests
 * share queries, but a request only ever uses a query that started after it arrived, so a
 * change committed before a request is always seen by it. Cached bytes are kept identity,
 * brotli and gzip, chosen by Accept-Encoding. Anything not a cookie-free 200 passes through.
 */
export function createPublicPageCache(options: PublicPageCacheOptions) {
  const maxEntries = options.maxEntries ?? 200;
  const pages = new Map<string, CachedPage>();
  const query = options.fingerprint ?? (() => blogFingerprint(options.db));

  const feed = options.changes;
  const hitHeaders = options.hitHeaders ?? [];
  const rendering = new Map<string, Promise<CachedPage>>();
  /** Query-free freshness: no write committed since the stamp, and no scheduled post due yet. */
  const isFresh = (page: CachedPage) =>
    feed !== undefined && page.changes === feed.changes && Date.now() < page.validUntil;
  const touch = (key: string, page: CachedPage) => {
    pages.delete(key); // keep the map in least-recently-used order
    pages.set(key, page);
  };

  let running: Promise<BlogFingerprint> | undefined;
  let queued: Promise<BlogFingerprint> | undefined;
  const start = () => {
    const started = query();
    running = started;
    const clear = () => {
      if (running === started) running = undefined;
    };
    started.then(clear, clear);
    return started;
  };
  /** Joins the next query to start: the one in flight may have read before this request arrived. */
  const fingerprint = (): Promise<BlogFingerprint> => {
    if (!running) return start();
    const settle = () => undefined;
    return (queued ??= running.then(settle, settle).then(() => {
      queued = undefined;
      return start();
    }));
  };

  async function render(request: ExpressRequest, key: string, stamp: Stamp): Promise<CachedPage> {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined || /^if-(none-match|modified-since)$/i.test(name)) continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const url = new URL(key, `${request.protocol}://${request.get("host") ?? "localhost"}`);
    const response = await options.handle(
      new Request(url, { method: "GET", headers }),
      request.ip ?? "unknown",
    );
    const identity = Buffer.from(await response.arrayBuffer());
    const responseHeaders: Array<[string, string]> = [];
    response.headers.forEach((value, name) => {
      if (!/^(set-cookie|content-length|content-encoding|vary)$/.test(name))
        responseHeaders.push([name, value]);
    });
    for (const cookie of response.headers.getSetCookie()) responseHeaders.push(["set-cookie", cookie]);
    const vary = response.headers.get("vary");
    if (vary) responseHeaders.push(["vary", vary]);
    const page: CachedPage = {
      ...stamp,
      status: response.status,
      headers: responseHeaders,
      etag: response.headers.get("etag"),
      bodies: { identity, br: undefined, gzip: undefined },
    };
    if (storable(page, response)) Object.assign(page.bodies, await compressVariants(identity));
    return page;
  }

  /** Only a shared, cookie-free 200 with a validator is kept (a cookie must never reach another visitor). */
  const storable = (page: CachedPage, response: Response) =>
    page.status === 200 &&
    page.etag !== null &&
    response.headers.getSetCookie().length === 0 &&
    !response.headers.has("content-encoding");

  /** Node's own request and response only, so a hit can be answered before Express runs. */
  function send(request: IncomingMessage, response: ServerResponse, page: CachedPage, hit: boolean) {
    const notModified =
      page.status === 200 &&
      page.etag !== null &&
      matchesIfNoneMatch(request.headers["if-none-match"], page.etag);
    response.statusCode = notModified ? 304 : page.status;
    response.setHeader("X-Page-Cache", hit ? "hit" : "miss");
    for (const [name, value] of page.headers) {
      if (notModified && name.startsWith("content-")) continue;
      if (name === "set-cookie" || name === "vary") response.appendHeader(name, value);
      else response.setHeader(name, value);
    }
    const compressed = page.bodies.br !== undefined;
    if (compressed) response.appendHeader("Vary", "Accept-Encoding");
    if (notModified) {
      response.end();
      return;
    }
    const encoding = compressed ? preferredEncoding(request.headers["accept-encoding"]) : undefined;
    const body = encoding ? page.bodies[encoding]! : page.bodies.identity;
    if (encoding) response.setHeader("Content-Encoding", encoding);
    response.setHeader("Content-Length", String(body.length));
    if (request.method === "HEAD") response.end();
    else response.end(body);
  }

  /**
   * A query-free hit answered on Node's request and response, before Express (its router and
   * request decoration cost most of a hit); `hitHeaders` stand in for the skipped middleware.
   * Returns false, having written nothing, for anything else.
   */
  function serveRaw(request: IncomingMessage, response: ServerResponse): boolean {
    if (!feed || (request.method !== "GET" && request.method !== "HEAD")) return false;
    const key = request.url;
    if (!key || !CACHEABLE_PATH.test(key)) return false;
    const page = pages.get(key);
    if (!page || !isFresh(page)) return false;
    for (const [name, value] of hitHeaders) response.setHeader(name, value);
    touch(key, page);
    send(request, response, page, true);
    return true;
  }

  /** The same as Express middleware, to mount before the compression middleware. */
  function serveFresh(request: ExpressRequest, response: ExpressResponse, next: NextFunction) {
    const key = feed && cacheKey(request);
    const page = key ? pages.get(key) : undefined;
    if (!key || !page || !isFresh(page)) return next();
    for (const [name, value] of hitHeaders) response.setHeader(name, value);
    touch(key, page);
    send(request, response, page, true);
  }

  async function handle(request: ExpressRequest, response: ExpressResponse, next: NextFunction) {
    const key = cacheKey(request);
    if (!key) return next();
    try {
      let page = pages.get(key);
      if (page && isFresh(page)) {
        touch(key, page);
        return send(request, response, page, true);
      }
      const changes = feed?.changes; // read before the query: a later write makes the stamp stale
      const current = await fingerprint();
      const stamp: Stamp = {
        digest: current.digest,
        changes,
        validUntil: current.validUntil?.getTime() ?? Number.POSITIVE_INFINITY,
      };
      page = pages.get(key);
      if (page && page.digest === stamp.digest) {
        Object.assign(page, stamp);
        touch(key, page);
        return send(request, response, page, true);
      }
      // Concurrent misses of one URL under one fingerprint share a render.
      const renderKey = `${stamp.digest} ${key}`;
      let pending = rendering.get(renderKey);
      if (!pending) {
        pending = render(request, key, stamp).finally(() => rendering.delete(renderKey));
        rendering.set(renderKey, pending);
      }
      page = await pending;
      if (page.bodies.br !== undefined) {
        touch(key, page);
        if (pages.size > maxEntries) pages.delete(pages.keys().next().value!);
      } else {
        pages.delete(key);
      }
      send(request, response, page, false);
    } catch (error) {
      next(error);
    }
  }

  return { serveRaw, serveFresh, handle };
}

/**
 * br when the client accepts it at all, else gzip, else identity: any acceptable coding may be
 * chosen (RFC 9110 §12.5.3), and browsers list gzip first although br is smaller. A coding is
 * acceptable when listed with q > 0, or covered by `*` with q > 0 and not listed.
 */
export function preferredEncoding(header: string | string[] | undefined): Encoding | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(",") : header).split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find(Boolean);
    weights.set(name, q === undefined ? 1 : Number(q));
  }
  const accepted = (encoding: string) => (weights.get(encoding) ?? weights.get("*") ?? 0) > 0;
  return ENCODINGS.find(accepted);
}
