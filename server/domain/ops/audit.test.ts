import { describe, expect, it } from "vitest";
import { auditTargetHref } from "./audit.ts";

describe("the page an audit entry links to", () => {
  const id = "6f1c2d3e-0000-4000-8000-000000000001";
  it.each([
    [
      "a subscription",
      { targetType: "subscription", targetId: id, details: {} },
      `/admin/subscriptions/${id}`,
    ],
    [
      "a device, on its subscription's page",
      { targetType: "device", targetId: "dev-1", details: { subscriptionId: id, slot: 1 } },
      `/admin/subscriptions/${id}#device-dev-1`,
    ],
    ["a VPN server", { targetType: "vpn-server", targetId: id, details: {} }, `/admin/servers#server-${id}`],
    ["a post", { targetType: "post", targetId: id, details: {} }, `/admin/blog/edit/${id}`],
    ["a message", { targetType: "message", targetId: id, details: {} }, `/admin/messages?id=${id}`],
  ])("links %s", (_kind, entry, href) => {
    expect(auditTargetHref(entry)).toBe(href);
  });

  it("links nothing it has no page for, and escapes what it puts in a link", () => {
    expect(auditTargetHref({ targetType: "export", targetId: "orders", details: {} })).toBeNull();
    expect(auditTargetHref({ targetType: "device", targetId: "dev-1", details: {} })).toBeNull();
    expect(auditTargetHref({ targetType: "post", targetId: "a/../b?c", details: {} })).toBe(
      "/admin/blog/edit/a%2F..%2Fb%3Fc",
    );
  });
});
