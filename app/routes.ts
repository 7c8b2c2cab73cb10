import { index, layout, route, type RouteConfig } from "@react-router/dev/routes";

/** The JSON API (DESIGN.md §2a: these paths are fixed), path under /api → its module in routes/api/. */
const API_ROUTES: Record<string, string> = {
  "send-contact-email": "send-contact-email",
  "create-checkout": "create-checkout",
  "verify-payment": "verify-payment",
  "blog-admin/list": "blog-admin-list",
  "blog-admin/create": "blog-admin-create",
  "blog-admin/update": "blog-admin-update",
  "blog-admin/delete": "blog-admin-delete",
  sitemap: "sitemap",
  "webhooks/stripe": "webhooks-stripe",
  "configs/:token": "config-download",
  "configs/:token/qr.svg": "config-qr",
  "nodes/peers": "node-peers",
  "nodes/status": "node-status",
  "nodes/servers": "node-servers",
  "nodes/whoami": "node-whoami",
  check: "check",
  "check/dns": "check-dns",
  "auth/*": "auth",
  "account/auth/*": "account-auth",
  "account/subscriptions": "account-subscriptions",
  "account/subscriptions/cancel": "account-subscription-cancel",
  "account/subscriptions/resume": "account-subscription-resume",
  "account/subscriptions/billing": "account-subscription-billing",
  "account/subscriptions/plan-change": "account-plan-change",
  "account/subscriptions/plan-change/quote": "account-plan-change-quote",
  "account/subscriptions/pass-checkout": "account-pass-checkout",
  "account/devices/add": "account-device-add",
  "account/devices/rename": "account-device-rename",
  "account/devices/revoke": "account-device-revoke",
  "account/devices/new-keys": "account-device-new-keys",
  "admin/audit-log": "admin-audit-log",
  "account/devices/move": "account-device-move",
  "admin/messages": "admin-messages",
  "admin/messages/status": "admin-messages-status",
  "admin/dashboard": "admin-dashboard",
  "admin/search": "admin-search",
  "admin/export": "admin-export",
  "admin/subscriptions/extend": "admin-subscription-extend",
  "admin/subscriptions/cancel": "admin-subscription-cancel",
  "admin/subscriptions/refund": "admin-subscription-refund",
  "admin/subscriptions/reactivate": "admin-subscription-reactivate",
  "admin/subscriptions/change-plan": "admin-subscription-change-plan",
  "admin/devices/revoke": "admin-device-revoke",
  "admin/devices/rekey": "admin-device-rekey",
  "admin/devices/resend-config": "admin-device-resend-config",
  "admin/servers/add": "admin-servers-add",
  "admin/servers/rotate-token": "admin-servers-rotate-token",
  "admin/servers/set-endpoint": "admin-servers-set-endpoint",
  "admin/servers/drain": "admin-servers-drain",
  "admin/servers/move-devices": "admin-servers-move-devices",
  "admin/servers/disable": "admin-servers-disable",
  "admin/servers/enable": "admin-servers-enable",
  "ops/doctor": "ops-doctor",
  "*": "unknown",
};

export default [
  // Marketing site
  index("routes/home.tsx"),
  route("pricing", "routes/pricing.tsx"),
  route("how-it-works", "routes/how-it-works.tsx"),
  route("tutorial", "routes/tutorial.tsx"),
  route("reviews", "routes/reviews.tsx"),
  route("contact", "routes/contact.tsx"),
  route("terms", "routes/terms.tsx"),
  route("privacy", "routes/privacy.tsx"),
  route("refund-policy", "routes/refund-policy.tsx"),
  route("check", "routes/check.tsx"),

  // Blog
  route("blog", "routes/blog.tsx"),
  route("blog/rss.xml", "routes/blog-rss.ts"),
  route("blog/:slug", "routes/blog-post.tsx"),
  route("blog/:slug/og.png", "routes/share-card.ts", { id: "post-share-card" }),
  route("og.png", "routes/share-card.ts", { id: "site-share-card" }),

  // Purchase flow
  route("get-started", "routes/get-started.tsx"),
  route("get-started/details", "routes/get-started-details.tsx"),
  route("get-started/payment", "routes/get-started-payment.tsx"),
  route("checkout/:sessionId", "routes/test-checkout.tsx"),
  route("payment-success", "routes/payment-success.tsx"),

  // The buyer's own account (decision 067)
  route("account", "routes/account.tsx"),
  route("account/receipts/:subscriptionId", "routes/account-receipt.tsx"),

  // Staff
  route("admin/login", "routes/admin-login.tsx"),
  layout("routes/admin-layout.tsx", [
    route("admin", "routes/admin-dashboard.tsx"),
    route("admin/orders", "routes/admin-orders.tsx"),
    route("admin/subscriptions", "routes/admin-subscriptions.tsx"),
    route("admin/blog", "routes/admin-blog.tsx"),
    route("admin/blog/new", "routes/admin-blog-editor.tsx", { id: "admin-blog-new" }),
    route("admin/blog/edit/:id", "routes/admin-blog-editor.tsx", { id: "admin-blog-edit" }),
    route("admin/messages", "routes/admin-messages.tsx"),
    route("admin/audit", "routes/admin-audit.tsx"),
    route("admin/subscriptions/:id", "routes/admin-subscription.tsx"),
    route("admin/servers", "routes/admin-servers.tsx"),
  ]),

  // For crawlers and operators
  route("sitemap.xml", "routes/sitemap-xml.ts"),
  route("robots.txt", "routes/robots-txt.ts"),
  route("healthz", "routes/healthz.ts"),
  route("readyz", "routes/readyz.ts"),
  route("metrics", "routes/metrics.ts"),

  // JSON API: one resource route module each, under routes/api/
  ...Object.entries(API_ROUTES).map(([path, module]) => route(`api/${path}`, `routes/api/${module}.ts`)),

  route("404", "routes/not-found.tsx", { id: "not-found" }),
  route("*", "routes/not-found.tsx", { id: "catch-all" }),
] satisfies RouteConfig;
