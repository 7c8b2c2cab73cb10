// The HTTP edge of /metrics: which route answered a request, how long it took,
// and who may read the figures.
import fs from "node:fs";
import path from "node:path";
import { matchRoutes, type RouteObject, type ServerBuild } from "react-router";
import type { Config } from "#server/config.ts";
import type { AppMetrics } from "#server/domain/ops/metrics.ts";
import { bearerTokenMatches } from "#server/secrets.ts";
import { ApiError } from "./api.ts";
import type { NodeHandler } from "./security-headers.ts";

/** `/assets/*` and the files of public/ (icons, the manifest) are one label each. */
export const ASSETS_ROUTE = "/assets/*";
export const STATIC_FILE_ROUTE = "static file";

/**
 * The route pattern a path lands on (`/blog/:slug`, `/api/configs/:token`, `/*` for the not-found
 * page), from the build's route manifest: a label with as many values as there are routes,
 * whatever URLs strangers send.
 */
export function routePatterns(
  routes: ServerBuild["routes"],
  staticFiles: ReadonlySet<string> = new Set(),
): (pathname: string) => string {
  const nodes = new Map<string, RouteObject & { children: RouteObject[] }>();
  for (const route of Object.values(routes)) {
    if (!route) continue;
    nodes.set(route.id, {
      id: route.id,
      path: route.path,
      index: route.index,
      caseSensitive: route.caseSensitive,
      children: [],
    } as RouteObject & { children: RouteObject[] });
  }
  const roots: RouteObject[] = [];
  for (const route of Object.values(routes)) {
    if (!route) continue;
    const node = nodes.get(route.id)!;
    const parent = route.parentId ? nodes.get(route.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const patternOf = (pathname: string) => {
    const matches = matchRoutes(roots, pathname);
    if (!matches) return "/*";
    const pattern = matches
      .map((match) => match.route.path)
      .filter(Boolean)
      .join("/");
    return `/${pattern}`;
  };
  // matchRoutes ranks every route again on each call: the busiest part of a cached page's answer.
  // Paths come from strangers, so the memo is bounded; it starts over when full.
  const known = new Map<string, string>();
  return (pathname) => {
    if (pathname.startsWith("/assets/")) return ASSETS_ROUTE;
    if (staticFiles.has(pathname)) return STATIC_FILE_ROUTE;
    let pattern = known.get(pathname);
    if (pattern === undefined) {
      if (known.size >= KNOWN_PATHS_LIMIT) known.clear();
      pattern = patternOf(pathname);
      known.set(pathname, pattern);
    }
    return pattern;
  };
}

const KNOWN_PATHS_LIMIT = 2_000;

/** The URL paths of the files under `directory` (build/client: public/ copied in), assets aside. */
export function staticFilePaths(directory: string): Set<string> {
  const paths = new Set<string>();
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (full !== path.join(directory, "assets")) walk(full);
      } else paths.add(`/${path.relative(directory, full).split(path.sep).join("/")}`);
    }
  };
  if (fs.existsSync(directory)) walk(directory);
  return paths;
}

/** Counts and times every answer of `handler`, labelled with its route pattern, once it is sent or abandoned. */
export function measureRequests(
  metrics: AppMetrics,
  routeOf: (pathname: string) => string,
  handler: NodeHandler,
): NodeHandler {
  return (request, response) => {
    const started = performance.now();
    response.once("close", () =>
      metrics.observeRequest({
        route: routeOf((request.url ?? "/").split("?")[0]!),
        method: request.method ?? "GET",
        status: response.statusCode,
        seconds: (performance.now() - started) / 1000,
      }),
    );
    handler(request, response);
  };
}

/**
 * Metrics only for the holder of METRICS_TOKEN. Without one configured nothing is served: a
 * store does not publish its sales and nodes by default.
 */
export function requireMetricsToken(config: Pick<Config, "METRICS_TOKEN">, authorization: string | null) {
  if (!config.METRICS_TOKEN)
    throw new ApiError(404, "Not found", "Metrics are off: set METRICS_TOKEN to serve them.");
  if (!bearerTokenMatches(authorization, config.METRICS_TOKEN))
    throw new ApiError(401, "Unauthorized", "Send the metrics token as Authorization: Bearer <token>.", {
      "WWW-Authenticate": 'Bearer realm="naijalink-metrics"',
    });
}
