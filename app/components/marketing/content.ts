// Static marketing copy shared by several pages (docs/product.md §1, §2 and §3).

export interface SavingsComparison {
  service: string;
  africaPrice: string;
  abroadPrice: string;
  savings: string;
  /** Name of the logo in SERVICE_LOGOS. */
  logo: string;
}

/** docs/product.md §3.2: Nigeria vs US/Canada monthly price. */
export const SAVINGS_COMPARISONS: SavingsComparison[] = [
  { service: "Spotify Premium", africaPrice: "$1.80", abroadPrice: "$9.99", savings: "82%", logo: "Spotify" },
  {
    service: "YouTube Premium",
    africaPrice: "$2.20",
    abroadPrice: "$11.99",
    savings: "82%",
    logo: "YouTube",
  },
  {
    service: "Netflix Standard",
    africaPrice: "$5.80",
    abroadPrice: "$15.49",
    savings: "63%",
    logo: "Netflix",
  },
  { service: "DSTV Premium", africaPrice: "$36.00", abroadPrice: "$89.99", savings: "60%", logo: "DSTV" },
];

export interface FaqItem {
  question: string;
  answer: string;
}

export const PRICING_FAQ: FaqItem[] = [
  {
    question: "What do I get after I pay?",
    answer:
      "Your WireGuard configuration file (.conf) right away on the success page, also as a QR code, and a copy by e-mail. Import it into the free WireGuard app and you have a Nigerian IP address.",
  },
  {
    question: "Which devices does it work on?",
    answer:
      "Windows, Mac, Android, iOS and Linux: anything that runs the official WireGuard app. Basic and the Unlock Pass cover 1 device; Pro plans cover up to 3 devices at once.",
  },
  {
    question: "How does the 7-Day Guarantee work?",
    answer:
      "If you have not yet activated your configuration (shown the QR code or downloaded the file), you can ask for a full refund within 7 days. After activation we refund if we cannot give you a working Nigerian connection after 72 hours of troubleshooting. See the Refund Policy for details.",
  },
  {
    question: "Can I cancel my subscription?",
    answer:
      "Yes. Monthly and yearly plans renew until you cancel, which you can do at any time by e-mailing support. The Unlock Pass is a one-time payment and does not renew.",
  },
  {
    question: "Will DSTV, Showmax and Startimes work?",
    answer:
      "Yes. Our servers are tuned for streaming, with unlimited bandwidth and 4K streaming without buffering on a good connection.",
  },
  {
    question: "Is my payment secure?",
    answer:
      "Payments go through a hosted card checkout protected by 256-bit SSL; we never see or store your card number.",
  },
];

export const SETUP_STEPS = [
  {
    title: "Download WireGuard",
    summary: "Download WireGuard from the official app store",
    detail:
      "Install the free, open-source WireGuard app: from the App Store on iPhone and iPad, from the Play Store on Android, or from the WireGuard website for Windows, Mac and Linux.",
  },
  {
    title: "Import the config file",
    summary: "Import the config file",
    detail:
      "Open WireGuard, choose Add Tunnel and import the .conf file we e-mailed you (or scan the QR code on the success page). It takes seconds and holds everything needed.",
  },
  {
    title: "Start saving",
    summary: "Start saving",
    detail:
      "Switch the tunnel on. You now browse with a Nigerian IP: stream DSTV, Showmax and Startimes, and pay Nigerian prices for your subscriptions.",
  },
] as const;
