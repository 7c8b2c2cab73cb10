// The plan catalogue: the single source for the browser and the server.

export type PlanId = "unlock" | "basic-monthly" | "pro-monthly" | "pro-yearly";
export type PlanType = "unlock" | "basic" | "pro_monthly" | "pro_yearly";

export interface Plan {
  id: PlanId;
  name: string;
  /** Display price, e.g. "$4.99". */
  price: string;
  priceCents: number;
  period: "one-time" | "/month" | "/year";
  /** In months: 0.25 for the 7-day pass. */
  duration: number;
  /** Length of access a payment buys, in days (what the server uses for expiresAt). */
  accessDays: number;
  devices: string;
  deviceLimit: number;
  totalPrice: string;
  features: string[];
  popular: boolean;
  isPopular: boolean;
  savings: string | null;
  originalPrice?: string;
  /** The badges, in the order shown; the first is highlighted on the popular plan. */
  badges: string[];
  planType: PlanType;
  /** How the provider charges it. */
  billing: "one_time" | "recurring";
  interval?: "month" | "year";
}

const proFeatures = [
  "All Basic benefits on up to 3 devices at once",
  "Stream DSTV, Showmax & Startimes abroad",
  "Unlock Nigerian prices",
  "Works on iOS, Android, PC & Mac",
  "Priority support",
];

export const PLANS: readonly Plan[] = [
  {
    id: "unlock",
    name: "Unlock Pass",
    price: "$9.99",
    priceCents: 999,
    period: "one-time",
    duration: 0.25,
    accessDays: 7,
    devices: "1 Device",
    deviceLimit: 1,
    totalPrice: "$9.99",
    features: ["Instant setup with config file", "Nigerian IP access", "7-day access", "1 device"],
    popular: false,
    isPopular: false,
    savings: null,
    badges: [],
    planType: "unlock",
    billing: "one_time",
  },
  {
    id: "basic-monthly",
    name: "Basic Monthly",
    price: "$4.99",
    priceCents: 499,
    period: "/month",
    duration: 1,
    accessDays: 30,
    devices: "1 Device",
    deviceLimit: 1,
    totalPrice: "$4.99",
    features: [
      "Stream Nigerian services abroad (DSTV, Showmax, Startimes)",
      "Unlock Nigerian prices",
      "Works on iOS, Android, PC & Mac",
      "1 device",
    ],
    popular: false,
    isPopular: false,
    savings: null,
    badges: [],
    planType: "basic",
    billing: "recurring",
    interval: "month",
  },
  {
    id: "pro-monthly",
    name: "Pro Monthly",
    price: "$7.99",
    priceCents: 799,
    period: "/month",
    duration: 1,
    accessDays: 30,
    devices: "3 Devices",
    deviceLimit: 3,
    totalPrice: "$7.99",
    features: proFeatures,
    popular: true,
    isPopular: true,
    savings: null,
    badges: ["Most Popular", "Best Value"],
    planType: "pro_monthly",
    billing: "recurring",
    interval: "month",
  },
  {
    id: "pro-yearly",
    name: "Pro Yearly",
    price: "$79.99",
    priceCents: 7999,
    period: "/year",
    duration: 12,
    accessDays: 365,
    devices: "3 Devices",
    deviceLimit: 3,
    totalPrice: "$79.99",
    features: proFeatures,
    popular: false,
    isPopular: false,
    savings: "Save 17%",
    originalPrice: "$95.88",
    badges: ["Best Value"],
    planType: "pro_yearly",
    billing: "recurring",
    interval: "year",
  },
];

export const PLAN_IDS = PLANS.map((plan) => plan.id) as [PlanId, ...PlanId[]];

export const DEFAULT_PLAN_ID: PlanId = "basic-monthly";

export function findPlan(id: string | null | undefined): Plan | undefined {
  return PLANS.find((plan) => plan.id === id);
}

export function planByType(planType: PlanType): Plan {
  return PLANS.find((plan) => plan.planType === planType)!;
}

export const PLAN_TYPE_LABELS: Record<PlanType, string> = {
  unlock: "Unlock Pass",
  basic: "Basic Monthly",
  pro_monthly: "Pro Monthly",
  pro_yearly: "Pro Yearly",
};
