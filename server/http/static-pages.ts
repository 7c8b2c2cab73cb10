// Static pages rendered once. A page whose route says `handle.hydrate === false`
// depends only on the build and the public config, both fixed for the life of the process, so
// the page cache renders it on the first request and answers from memory from then on. This
// is "prerender where static" (docs/product.md §11.6) at run time: a build-time prerender could not know
// the deployment's config (brand, support address, public URL, video id).
import type { ServerBuild } from "react-router";
import type { PageHandle } from "#core/static-page.ts";
import type { Executor } from "#server/db/client.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import type { PageSource } from "./page-cache.ts";

/**
 * The paths of the build's static page routes: plain paths only (no params, no splat), none
 * that differs per visitor and none that shows data (the blog's pages, kept by their own source).
 * `sales-state`: those that also say whether orders are paused (`salesStatePageSource`).
 */
export function staticPagePaths(
  build: Pick<ServerBuild, "routes">,
  kind: "static" | "sales-state" = "static",
): string[] {
  const paths: string[] = [];
  for (const route of Object.values(build.routes)) {
    if (!route || route.parentId !== "root") continue;
    const handle = route.module.handle as PageHandle | undefined;
    if (handle?.hydrate !== false || handle.perVisitor || handle.rendersAfterNavigation) continue;
    if (Boolean(handle.showsSalesState) !== (kind === "sales-state")) continue;
    if (route.index) paths.push("/");
    else if (route.path && /^[a-z0-9/-]+$/.test(route.path)) paths.push(`/${route.path}`);
  }
  return paths;
}

/** Exactly these paths, without a query string; one version for the life of the process. */
export function staticPageSource(paths: readonly string[]): PageSource {
  const known = new Set(paths);
  const version = { digest: "process", validUntil: null };
  return {
    key: (target) => (known.has(target) ? target : undefined),
    version: () => Promise.resolve(version),
    changes: { count: 0 },
  };
}

/**
 * How long a page kept under one sales state is answered without asking again. The state
 * changes with writes of any process (a server drained, a node registered, the last address
 * taken), so it is read again, one small query, at most this often: a paused store says so
 * within seconds, and so does one selling again.
 */
export const SALES_STATE_RECHECK_MS = 5_000;

/** Exactly these paths, kept per sales state: "selling" while a VPN server can take a device, else "paused". */
export function salesStatePageSource(paths: readonly string[], db: Executor): PageSource {
  const known = new Set(paths);
  return {
    key: (target) => (known.has(target) ? target : undefined),
    version: async () => ({
      digest: (await anyServerCanTakeDevice(db)) ? "selling" : "paused",
      validUntil: null,
    }),
    changes: { count: 0 },
    recheckAfterMs: SALES_STATE_RECHECK_MS,
  };
}
