// Static pages rendered once. A page whose route says `handle.hydrate === false`
// depends only on the build and the public config, both fixed for the life of the process, so
// the page cache renders it on the first request and answers from memory from then on. This
// is "prerender where static" (DESIGN.md §3) at run time: a build-time prerender could not know
// the deployment's config (brand, support address, public URL, video id).
import type { ServerBuild } from "react-router";
import type { PageHandle } from "#app/lib/static-page.ts";
import type { PageSource } from "./page-cache.ts";

/**
 * The paths of the build's static page routes: plain paths only (no params, no splat), none
 * that differs per visitor and none that shows data (the blog's pages, kept by their own source).
 */
export function staticPagePaths(build: Pick<ServerBuild, "routes">): string[] {
  const paths: string[] = [];
  for (const route of Object.values(build.routes)) {
    if (!route || route.parentId !== "root") continue;
    const handle = route.module.handle as PageHandle | undefined;
    if (handle?.hydrate !== false || handle.perVisitor || handle.rendersAfterNavigation) continue;
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
