import {
  Gauge,
  Globe,
  Headphones,
  Infinity as InfinityIcon,
  Lock,
  MonitorSmartphone,
  ShieldCheck,
  Tv,
  Zap,
  type LucideIcon,
} from "lucide-react";
import { cn } from "#app/lib/utils.ts";

// The product's features as the marketing pages list them, and the grid that shows them.

export interface Feature {
  icon: LucideIcon;
  title: string;
  text: string;
}

/** The marketing claims (docs/product.md §1.1). */
export const LANDING_FEATURES: Feature[] = [
  {
    icon: Zap,
    title: "Instant Config Delivery",
    text: "Your WireGuard config file arrives the moment you pay.",
  },
  {
    icon: Lock,
    title: "Military-Grade Encryption",
    text: "Modern WireGuard cryptography protects every connection.",
  },
  { icon: ShieldCheck, title: "Zero-Log Policy", text: "We never record what you browse or stream." },
  {
    icon: Tv,
    title: "Servers Tuned for Streaming",
    text: "4K streaming without buffering on DSTV, Showmax and Startimes.",
  },
  { icon: MonitorSmartphone, title: "Works Everywhere", text: "Windows, Mac, Android, iOS and Linux." },
  {
    icon: InfinityIcon,
    title: "Unlimited Bandwidth",
    text: "No caps, no throttling, watch as much as you like.",
  },
  { icon: Headphones, title: "24/7 Support", text: "Real people ready to help, answering within 24 hours." },
  { icon: Lock, title: "256-bit SSL Payments", text: "Pay by card through a secure hosted checkout." },
];

/** The four benefits of /how-it-works (docs/product.md §2.5). */
export const HOW_IT_WORKS_BENEFITS: Feature[] = [
  {
    icon: ShieldCheck,
    title: "Strong Encryption",
    text: "Military-grade encryption keeps your connection private and secure.",
  },
  { icon: Gauge, title: "Fast Speeds", text: "Servers tuned for streaming: 4K streaming without buffering." },
  { icon: Globe, title: "Global Access", text: "A Nigerian IP from anywhere in the world, in seconds." },
  {
    icon: MonitorSmartphone,
    title: "All Devices",
    text: "iOS, Android, Windows, Mac, Linux: one config, any device.",
  },
];

export function FeatureGrid({ features, columns = 4 }: { features: Feature[]; columns?: 2 | 4 }) {
  return (
    <ul className={cn("grid gap-6 sm:grid-cols-2", columns === 4 && "lg:grid-cols-4")}>
      {features.map((feature) => (
        <li key={feature.title} className="rounded-xl border bg-card p-6 shadow-sm">
          <feature.icon aria-hidden="true" className="size-8 text-primary" />
          <h3 className="mt-4 text-lg font-semibold">{feature.title}</h3>
          <p className="mt-2 text-muted-foreground">{feature.text}</p>
        </li>
      ))}
    </ul>
  );
}
