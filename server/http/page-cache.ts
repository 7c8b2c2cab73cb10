// The one page cache: rendered pages kept in memory with their brotli and gzip
// variants, answered with one ETag rule, 304s and `Vary: Accept-Encoding`, while the source
// they were rendered from is unchanged. A source says which URLs it answers and what version
// of its data is current; it knows nothing of HTTP (the blog's is in domain/blog/freshness.ts).
import crypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import { compressVariants, preferredEncoding, type Encoding } from "./encoding.ts";

/** Browsers and shared caches may keep a copy but must revalidate it: a change shows at once. */
export const PAGE_CACHE_CONTROL = "public, max-age=0, must-revalidate";

export interface PageVersion {
  /** Pages rendered under one digest are current while it holds. */
  digest: string;
  /** When pages of this digest stop being current with no change recorded (a scheduled post). */
  validUntil: Date | null;
  lastModified?: Date | null;
}

export interface PageSource {
  /** The cache key for a request target (path and query), or undefined for one it does not answer. */
  key(target: string): string | undefined;
  version(now: Date): Promise<PageVersion>;
  /**
   * A counter of changes, bumped before the change's writer carries on (or, with
   * `recheckAfterMs`, soon after). With it a page stays current, without asking `version`, while
   * the counter and the page's `validUntil` hold.
   */
  changes?: { readonly count: number };
  /**
   * For a counter that may lag a change (notifications from other processes): a page is current
   * on the counter for at most this long after its version was last checked.
   */
  recheckAfterMs?: number;
}

interface Page {
  digest: string;
  /** The source's counter read before the version that rendered the page, and its deadline. */
  changes: number | undefined;
  validUntil: number;
  /** The render's headers except those describing the body, which are set per answer. */
  headers: Array<[string, string]>;
  etag: string;
  bodies: { identity: Buffer } & Record<Encoding, Buffer>;
}

/** Weak (the same page goes out in three codings), from the bytes: one rule for every page. */
export const etagOf = (body: Buffer) => `W/"${crypto.createHash("sha1").update(body).digest("base64url")}"`;

/** RFC 9110 §13.1.2: weak comparison, a list of tags, or `*`. */
export function matchesIfNoneMatch(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const wanted = opaque(etag);
  return header.split(",").some((tag) => opaque(tag) === wanted);
}

/** The headers a page's render may not pass on: the cache sets them per answer. */
const PER_ANSWER = /^(content-length|content-encoding|etag|cache-control|last-modified)$/;

const HTML = "text/html; charset=utf-8";

/** A render that is not kept (a 404, an error, a no-store answer), as the handler made it. */
interface Unkept {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** Only a cookie-free 200 that allows shared caching is kept: a cookie must never reach another visitor. */
const storable = (response: Response) =>
  response.status === 200 &&
  response.headers.getSetCookie().length === 0 &&
  !response.headers.has("content-encoding") &&
  !/no-store|private/.test(response.headers.get("cache-control") ?? "");

export function createPageCache(options: {
  sources: readonly PageSource[];
  /** The app's Fetch handler (React Router with the request context). */
  handle: (request: Request, clientIp: string) => Promise<Response>;
  /** The site's address (PUBLIC_URL): a shared page is rendered at it, never at a visitor's Host. */
  publicUrl: string;
  /**
   * A request the cache must leave to the app although its URL is a kept page's: one carrying
   * something for this visitor alone (a flash message).
   */
  personal?: (request: IncomingMessage) => boolean;
  maxEntries?: number;
  now?: () => number;
}) {
  const maxEntries = options.maxEntries ?? 200;
  const now = options.now ?? Date.now;
  const pages = new Map<string, Page>();
  const rendering = new Map<string, Promise<Page | Unkept>>();
  const versions = new Map(options.sources.map((source) => [source, sharedVersion(source, now)]));

  const match = (method: string | undefined, target: string | undefined) => {
    if ((method !== "GET" && method !== "HEAD") || !target) return undefined;
    for (const source of options.sources) {
      const key = source.key(target);
      if (key !== undefined) return { source, key };
    }
    return undefined;
  };
  const isCurrent = (source: PageSource, page: Page) =>
    source.changes !== undefined && page.changes === source.changes.count && now() < page.validUntil;
  const touch = (key: string, page: Page) => {
    pages.delete(key); // keep the map in least-recently-used order
    pages.set(key, page);
    if (pages.size > maxEntries) pages.delete(pages.keys().next().value!);
  };

  async function render(request: ExpressRequest, key: string, stamp: Stamp): Promise<Page | Unkept> {
    // A page shared by every visitor is rendered from the URL alone, none of one visitor's headers.
    const url = new URL(key, options.publicUrl);
    const response = await options.handle(new Request(url), request.ip ?? "unknown");
    const identity = Buffer.from(await response.arrayBuffer());
    if (!storable(response)) return { status: response.status, headers: response.headers, body: identity };
    const headers: Array<[string, string]> = [];
    response.headers.forEach((value, name) => {
      if (PER_ANSWER.test(name)) return;
      // React Router says text/html only; the document is UTF-8, and the header says so.
      headers.push([name, name === "content-type" && value === "text/html" ? HTML : value]);
    });
    if (stamp.lastModified) headers.push(["last-modified", stamp.lastModified.toUTCString()]);
    const bodies = { identity, ...(await compressVariants(identity)) };
    return { ...stamp, headers, etag: etagOf(identity), bodies };
  }

  /**
   * A current page answered on Node's own request and response, so a host can call it before
   * Express (whose router and request decoration cost most of a hit). Returns false, having
   * written nothing, for anything else.
   */
  function serveHit(request: IncomingMessage, response: ServerResponse): boolean {
    if (options.personal?.(request)) return false;
    const found = match(request.method, request.url);
    const page = found && pages.get(found.key);
    if (!found || !page || !isCurrent(found.source, page)) return false;
    touch(found.key, page);
    send(request, response, page, "hit");
    return true;
  }

  /** Express middleware: hits, then a version check, then a render kept for the next request. */
  async function serve(request: ExpressRequest, response: ExpressResponse, next: NextFunction) {
    if (serveHit(request, response)) return;
    if (options.personal?.(request)) return next();
    const found = match(request.method, request.originalUrl);
    if (!found) return next();
    const { source, key } = found;
    try {
      const checkedAt = now();
      const changes = source.changes?.count; // read before the version: a later change makes it stale
      const version = await versions.get(source)!();
      const stamp: Stamp = {
        digest: version.digest,
        changes,
        validUntil: Math.min(
          version.validUntil?.getTime() ?? Number.POSITIVE_INFINITY,
          checkedAt + (source.recheckAfterMs ?? Number.POSITIVE_INFINITY),
        ),
        lastModified: version.lastModified ?? null,
      };
      const kept = pages.get(key);
      if (kept && kept.digest === stamp.digest) {
        Object.assign(kept, { changes: stamp.changes, validUntil: stamp.validUntil });
        touch(key, kept);
        return send(request, response, kept, "hit");
      }
      // Concurrent misses of one URL under one version share a render.
      const renderKey = `${stamp.digest} ${key}`;
      let pending = rendering.get(renderKey);
      if (!pending) {
        pending = render(request, key, stamp).finally(() => rendering.delete(renderKey));
        rendering.set(renderKey, pending);
      }
      const page = await pending;
      if (!("etag" in page)) {
        // A cookie was made for a request without any: the visitor's own request must make theirs.
        if (page.headers.has("set-cookie")) return next();
        return passThrough(request, response, page);
      }
      touch(key, page);
      send(request, response, page, "miss");
    } catch (error) {
      next(error);
    }
  }

  return { serveHit, serve };
}

type Stamp = Pick<Page, "digest" | "changes" | "validUntil"> & { lastModified: Date | null };

/**
 * The source's version, with concurrent requests sharing a query; but a request only joins a
 * query that starts after it arrived, so a change committed before the request is always seen.
 */
function sharedVersion(source: PageSource, now: () => number) {
  let running: Promise<PageVersion> | undefined;
  let queued: Promise<PageVersion> | undefined;
  const start = () => {
    const started = source.version(new Date(now()));
    running = started;
    const clear = () => {
      if (running === started) running = undefined;
    };
    started.then(clear, clear);
    return started;
  };
  return (): Promise<PageVersion> => {
    if (!running) return start();
    const settle = () => undefined;
    return (queued ??= running.then(settle, settle).then(() => {
      queued = undefined;
      return start();
    }));
  };
}

function send(request: IncomingMessage, response: ServerResponse, page: Page, state: "hit" | "miss") {
  const notModified = matchesIfNoneMatch(request.headers["if-none-match"], page.etag);
  response.statusCode = notModified ? 304 : 200;
  response.setHeader("X-Page-Cache", state);
  for (const [name, value] of page.headers) {
    if (!notModified || !name.startsWith("content-")) response.setHeader(name, value);
  }
  response.setHeader("ETag", page.etag);
  response.setHeader("Cache-Control", PAGE_CACHE_CONTROL);
  response.appendHeader("Vary", "Accept-Encoding");
  if (notModified) return void response.end();
  const encoding = preferredEncoding(request.headers["accept-encoding"]);
  const body = encoding ? page.bodies[encoding] : page.bodies.identity;
  if (encoding) response.setHeader("Content-Encoding", encoding);
  response.setHeader("Content-Length", String(body.length));
  response.end(request.method === "HEAD" ? undefined : body);
}

/** Cookie-free, so one render may answer every request that waited for it. */
function passThrough(request: IncomingMessage, response: ServerResponse, rendered: Unkept) {
  response.statusCode = rendered.status;
  rendered.headers.forEach((value, name) => {
    if (name !== "content-length") response.setHeader(name, value);
  });
  response.end(request.method === "HEAD" ? undefined : rendered.body);
}
