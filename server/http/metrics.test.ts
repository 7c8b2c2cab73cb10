import type { ServerBuild } from "react-router";
import { describe, expect, it } from "vitest";
import { ASSETS_ROUTE, routePatterns, STATIC_FILE_ROUTE } from "./metrics.ts";

const routes = {
  root: { id: "root", path: "", parentId: undefined },
  blog: { id: "blog", path: "blog", parentId: "root" },
  post: { id: "post", path: "blog/:slug", parentId: "root" },
  config: { id: "config", path: "api/configs/:token", parentId: "root" },
} as unknown as ServerBuild["routes"];

describe("routePatterns", () => {
  it("labels each path with its route's pattern, assets and static files with one label each", () => {
    const routeOf = routePatterns(routes, new Set(["/favicon.ico"]));
    expect(routeOf("/blog")).toBe("/blog");
    expect(routeOf("/blog/a-post")).toBe("/blog/:slug");
    expect(routeOf("/api/configs/abc")).toBe("/api/configs/:token");
    expect(routeOf("/assets/app.js")).toBe(ASSETS_ROUTE);
    expect(routeOf("/favicon.ico")).toBe(STATIC_FILE_ROUTE);
    expect(routeOf("/no/such/page")).toBe("/*");
  });

  it("keeps labelling right past its memo's bound, whatever paths strangers send", () => {
    const routeOf = routePatterns(routes);
    for (let index = 0; index < 5_000; index++) expect(routeOf(`/blog/post-${index}`)).toBe("/blog/:slug");
    expect(routeOf("/blog")).toBe("/blog");
    expect(routeOf("/x/post-1")).toBe("/*");
  });
});
