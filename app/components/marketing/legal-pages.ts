/** The legal pages' titles, search descriptions and paths (docs/product.md §2.9). */
export const LEGAL_PAGES = {
  privacy: {
    title: "Privacy Policy",
    description:
      "How NaijaLink handles your personal data: our zero-log policy, what we keep to deliver your config, and your rights.",
    path: "/privacy",
  },
  terms: {
    title: "Terms and Conditions",
    description:
      "The terms of the NaijaLink VPN service: plans, renewals, the 7-day guarantee, refunds and acceptable use.",
    path: "/terms",
  },
  refundPolicy: {
    title: "Refund Policy",
    description:
      "The NaijaLink 7-day guarantee, the 72-hour rule after activation, and how to ask for a refund.",
    path: "/refund-policy",
  },
} as const;
