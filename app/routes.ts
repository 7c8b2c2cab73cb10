import { index, route, type RouteConfig } from "@react-router/dev/routes";

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

  // Blog
  route("blog", "routes/blog.tsx"),
  route("blog/rss.xml", "routes/blog-rss.ts"),
  route("blog/:slug", "routes/blog-post.tsx"),

  // Purchase flow
  route("get-started", "routes/get-started.tsx"),
  route("get-started/details", "routes/get-started-details.tsx"),
  route("get-started/payment", "routes/get-started-payment.tsx"),
  route("checkout/:sessionId", "routes/test-checkout.tsx"),
  route("payment-success", "routes/payment-success.tsx"),

  // Staff
  route("admin/login", "routes/admin-login.tsx"),
  route("admin/blog", "routes/admin-blog.tsx"),
  route("admin/blog/new", "routes/admin-blog-editor.tsx", { id: "admin-blog-new" }),
  route("admin/blog/edit/:id", "routes/admin-blog-editor.tsx", { id: "admin-blog-edit" }),

  // For crawlers and operators
  route("sitemap.xml", "routes/sitemap-xml.ts"),
  route("robots.txt", "routes/robots-txt.ts"),
  route("healthz", "routes/healthz.ts"),
  route("readyz", "routes/readyz.ts"),

  // JSON API (DESIGN.md §2a: these paths are fixed)
  route("api/send-contact-email", "routes/api/send-contact-email.ts"),
  route("api/create-checkout", "routes/api/create-checkout.ts"),
  route("api/verify-payment", "routes/api/verify-payment.ts"),
  route("api/blog-admin/list", "routes/api/blog-admin-list.ts"),
  route("api/blog-admin/create", "routes/api/blog-admin-create.ts"),
  route("api/blog-admin/update", "routes/api/blog-admin-update.ts"),
  route("api/blog-admin/delete", "routes/api/blog-admin-delete.ts"),
  route("api/sitemap", "routes/api/sitemap.ts"),
  route("api/webhooks/stripe", "routes/api/webhooks-stripe.ts"),
  route("api/configs/:token", "routes/api/config-download.ts"),
  route("api/configs/:token/qr.svg", "routes/api/config-qr.ts"),
  route("api/nodes/peers", "routes/api/node-peers.ts"),
  route("api/nodes/status", "routes/api/node-status.ts"),
  route("api/nodes/servers", "routes/api/node-servers.ts"),
  route("api/auth/*", "routes/api/auth.ts"),
  route("api/*", "routes/api/unknown.ts"),

  route("404", "routes/not-found.tsx", { id: "not-found" }),
  route("*", "routes/not-found.tsx", { id: "catch-all" }),
] satisfies RouteConfig;
