// Which request targets a POST can reach: the route React Router would run the action of, and
// whether that route has one. The intake (intake.ts) answers a POST to a route without an action
// with a 405 itself, so React Router never sees it (it would log its own 405 as an error).
import { matchRoutes, type RouteMatch, type RouteObject, type ServerBuild } from "react-router";

/**
 * For a request target (path and query), the route a POST reaches: whether it has an action, and
 * whether it is a page (it renders, so its action reads a form) rather than a resource route;
 * undefined when no route matches.
 */
export type ActionLookup = (target: string) => { action: boolean; page: boolean } | undefined;

export function routeActions(build: Pick<ServerBuild, "routes">): ActionLookup {
  const routes = Object.values(build.routes).filter((route) => route !== undefined);
  const byId = new Map(routes.map((route) => [route.id, route]));
  const nodes = new Map<string, RouteObject>(
    routes.map((route) => [
      route.id,
      route.index
        ? { id: route.id, index: true, caseSensitive: route.caseSensitive }
        : { id: route.id, path: route.path, caseSensitive: route.caseSensitive, children: [] },
    ]),
  );
  const roots: RouteObject[] = [];
  for (const route of routes) {
    const parent = route.parentId ? nodes.get(route.parentId) : undefined;
    (parent?.children ?? roots).push(nodes.get(route.id)!);
  }
  // matchRoutes ranks and compiles every route's pattern on each call: a POST to a path seen
  // before (every verify-payment) is answered from memory. Bounded, so random paths cannot grow it.
  const known = new Map<string, ReturnType<ActionLookup>>();
  return (target) => {
    const { pathname, search } = dataRequestTarget(target);
    const key = `${new URLSearchParams(search).getAll("index").includes("") ? "index:" : ""}${pathname}`;
    if (known.has(key)) return known.get(key);
    const matches = matchRoutes(roots, pathname);
    const found = matches?.length ? byId.get(targetOf(matches, search).route.id!)!.module : undefined;
    const answer = found && {
      action: typeof found.action === "function",
      page: typeof found.default === "function",
    };
    if (known.size >= KNOWN_TARGETS) known.clear();
    known.set(key, answer);
    return answer;
  };
}

const KNOWN_TARGETS = 1000;
/**
 * The page a single-fetch data request (`/pricing.data`, `/_root.data`) stands for, with
 * `_routes` dropped, as React Router's server normalises it before matching.
 */
function dataRequestTarget(target: string): { pathname: string; search: string } {
  const at = target.indexOf("?");
  let pathname = at === -1 ? target : target.slice(0, at);
  const params = new URLSearchParams(at === -1 ? "" : target.slice(at + 1));
  if (pathname === "/_root.data") pathname = "/";
  else if (pathname.endsWith(".data")) pathname = pathname.slice(0, -".data".length);
  if (pathname !== "/" && pathname.endsWith("/")) pathname = pathname.slice(0, -1);
  params.delete("_routes");
  return { pathname, search: params.toString() };
}

/**
 * The route whose action a POST runs (React Router's `getTargetMatch`): an index route only when
 * the query holds a bare `index`, otherwise the deepest route that contributes to the path.
 */
function targetOf(matches: RouteMatch[], search: string): RouteMatch {
  const last = matches[matches.length - 1]!;
  if (last.route.index && new URLSearchParams(search).getAll("index").includes("")) return last;
  const contributing = matches.filter((match, at) => at === 0 || (match.route.path?.length ?? 0) > 0);
  return contributing[contributing.length - 1]!;
}
