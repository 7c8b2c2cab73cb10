/** Every page route of docs/product.md §2.1 with a heading it must render (the product's words where docs/product.md quotes them). */
export const PAGE_ROUTES: Array<{ path: string; heading: string | RegExp }> = [
  { path: "/", heading: "Access Nigerian Content From Anywhere" },
  { path: "/pricing", heading: "Choose Your Plan" },
  { path: "/how-it-works", heading: "How NaijaLink Works" },
  { path: "/tutorial", heading: /Tutorial|Set ?up/i },
  { path: "/reviews", heading: /Review|Customers/i },
  { path: "/contact", heading: "Get in Touch" },
  { path: "/blog", heading: /Blog/ },
  { path: "/terms", heading: "Terms and Conditions" },
  { path: "/privacy", heading: "Privacy Policy" },
  { path: "/refund-policy", heading: "Refund Policy" },
  { path: "/check", heading: /(Yes, you are|No, you are not) connected through Nigeria/ },
  { path: "/get-started", heading: /Choose (Your )?Plan/ },
  { path: "/get-started/details", heading: /Your Details/ },
  { path: "/get-started/payment", heading: /Payment/ },
  { path: "/payment-success", heading: /Payment|No payment session found/ },
  { path: "/admin/login", heading: /Sign In|Login/i },
  { path: "/admin/blog", heading: /Blog Admin|Sign In|Login/i },
  // Signed out, the editor silently sends the visitor to / (docs/product.md §9.2).
  { path: "/admin/blog/new", heading: /New Post|Sign In|Login|Access Nigerian Content From Anywhere/i },
];

/** The public marketing pages (docs/product.md §2.3 to §2.9); static, not hydrated (decision 012). */
export const MARKETING_PAGES = [
  "/",
  "/pricing",
  "/how-it-works",
  "/tutorial",
  "/reviews",
  "/contact",
  "/terms",
  "/privacy",
  "/refund-policy",
];
