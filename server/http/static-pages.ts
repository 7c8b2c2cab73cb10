// Static pages rendered once (decision 012). A page whose route says `handle.hydrate === false`
// depends only on the build and the public config, both fixed for the life of the process, so
// its HTML is rendered on the first request, compressed once at the highest settings (brotli
// 11, gzip 9) off the main thread, and then answered from memory with an ETag. This is
// "prerender where static" (DESIGN.md §3) at run time: a build-time prerender could not know
// the deployment's config (brand, support address, public URL, video id).
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import crypto from "node:crypto";
import type { ServerBuild } from "react-router";
import { compressVariants, matchesIfNoneMatch, preferredEncoding } from "#server/domain/blog/cache.ts";

/** Revalidated on every use, so a deploy shows at once; unchanged pages cost a 304. */
const CACHE_CONTROL = "public, max-age=0, must-revalidate";

interface RenderedPage {
  headers: Array<[string, string]>;
  etag: string;
  bodies: { identity: Buffer; br: Buffer; gzip: Buffer };
}

/** The paths of the build's static page routes: plain paths only (no params, no splat). */
export function staticPagePaths(build: Pick<ServerBuild, "routes">): string[] {
  const paths: string[] = [];
  for (const route of Object.values(build.routes)) {
    if (!route || route.parentId !== "root") continue;
    const handle = route.module.handle as { hydrate?: boolean } | undefined;
    if (handle?.hydrate !== false) continue;
    if (route.index) paths.push("/");
    else if (route.path && /^[a-z0-9/-]+$/.test(route.path)) paths.push(`/${route.path}`);
  }
  return paths;
}

/**
 * Express middleware for the given paths (query-free GET/HEAD only); everything else, and a
 * render that is not a cookie-free 200, passes through to the normal handler untouched.
 */
export function createStaticPageCache(options: {
  paths: readonly string[];
  /** The app's Fetch handler (React Router with the request context). */
  handle: (request: Request, clientIp: string) => Promise<Response>;
}) {
  const paths = new Set(options.paths);
  const pages = new Map<string, Promise<RenderedPage | null>>();

  async function render(request: ExpressRequest, pathname: string): Promise<RenderedPage | null> {
    const url = new URL(pathname, `${request.protocol}://${request.get("host") ?? "localhost"}`);
    const response = await options.handle(new Request(url), request.ip ?? "unknown");
    const identity = Buffer.from(await response.arrayBuffer());
    if (
      response.status !== 200 ||
      response.headers.getSetCookie().length > 0 ||
      response.headers.has("content-encoding")
    ) {
      return null;
    }
    const headers: Array<[string, string]> = [];
    response.headers.forEach((value, name) => {
      if (!/^(content-type|content-length|content-encoding|vary|etag|cache-control)$/.test(name))
        headers.push([name, value]);
    });
    // Weak: the same page is sent in three encodings (as the blog cache does, decision 022).
    const etag = `W/"${crypto.createHash("sha1").update(identity).digest("base64url")}"`;
    return { headers, etag, bodies: { identity, ...(await compressVariants(identity)) } };
  }

  return async function serveStaticPage(
    request: ExpressRequest,
    response: ExpressResponse,
    next: NextFunction,
  ) {
    if ((request.method !== "GET" && request.method !== "HEAD") || !paths.has(request.originalUrl)) {
      return next();
    }
    const key = request.originalUrl;
    try {
      let pending = pages.get(key);
      if (!pending) {
        pending = render(request, key);
        pages.set(key, pending);
        // A thrown render is not kept: the next request tries again. A page that is not a plain
        // 200 (the 404 page) is remembered as such and always passes through.
        pending.catch(() => pages.delete(key));
      }
      const page = await pending;
      if (!page) return next();
      for (const [name, value] of page.headers) response.setHeader(name, value);
      response.setHeader("Content-Type", "text/html; charset=utf-8");
      response.setHeader("ETag", page.etag);
      response.setHeader("Cache-Control", CACHE_CONTROL);
      response.setHeader("Vary", "Accept-Encoding");
      response.setHeader("X-Page-Cache", "static");
      if (matchesIfNoneMatch(request.headers["if-none-match"], page.etag)) {
        response.removeHeader("Content-Type");
        response.status(304).end();
        return;
      }
      const encoding = preferredEncoding(request.headers["accept-encoding"]);
      const body = encoding ? page.bodies[encoding] : page.bodies.identity;
      if (encoding) response.setHeader("Content-Encoding", encoding);
      response.setHeader("Content-Length", String(body.length));
      response.status(200);
      if (request.method === "HEAD") response.end();
      else response.end(body);
    } catch (error) {
      next(error);
    }
  };
}
