import type { ServerBuild } from "react-router";
import { describe, expect, it } from "vitest";
import { routeActions } from "./route-actions.ts";

const page = { default: () => null };
const action = () => null;

/** A route table shaped like the build's: a layout with pages, an index, a resource route, a splat. */
const build = {
  routes: {
    root: { id: "root", path: "", module: { ...page } },
    home: { id: "home", parentId: "root", index: true, module: { ...page, action } },
    pricing: { id: "pricing", parentId: "root", path: "pricing", module: { ...page } },
    layout: { id: "layout", parentId: "root", module: { ...page } },
    admin: { id: "admin", parentId: "layout", path: "admin/blog", module: { ...page, action } },
    checkout: { id: "checkout", parentId: "root", path: "checkout/:sessionId", module: { ...page, action } },
    metrics: { id: "metrics", parentId: "root", path: "metrics", module: { loader: action, action } },
    "catch-all": { id: "catch-all", parentId: "root", path: "*", module: { ...page } },
  },
} as unknown as Pick<ServerBuild, "routes">;

describe("which route a POST reaches", () => {
  const lookup = routeActions(build);

  it("finds the page or resource route React Router would run the action of", () => {
    expect(lookup("/pricing")).toEqual({ action: false, page: true });
    expect(lookup("/admin/blog?tab=2")).toEqual({ action: true, page: true });
    expect(lookup("/checkout/cs_test_1")).toEqual({ action: true, page: true });
    expect(lookup("/metrics")).toEqual({ action: true, page: false });
    expect(lookup("/no/such/page")).toEqual({ action: false, page: true });
  });

  it("takes an index route's action only with a bare ?index, as React Router does", () => {
    expect(lookup("/?index")).toEqual({ action: true, page: true });
    expect(lookup("/")).toEqual({ action: false, page: true });
  });

  it("reads a single-fetch data request as its page", () => {
    expect(lookup("/pricing.data")).toEqual({ action: false, page: true });
    expect(lookup("/admin/blog.data?_routes=admin")).toEqual({ action: true, page: true });
    expect(lookup("/_root.data?index")).toEqual({ action: true, page: true });
    expect(lookup("/checkout/cs_test_1.data")).toEqual({ action: true, page: true });
  });
});
