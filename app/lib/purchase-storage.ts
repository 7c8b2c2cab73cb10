// Browser storage of the purchase flow, under the keys the spec names.
import { z } from "zod";
import { findPlan, PLAN_IDS, type Plan } from "./plans.ts";

export const SELECTED_PLAN_KEY = "selectedPlan";
export const SUBSCRIBER_DETAILS_KEY = "subscriberDetails";

export const subscriberDetailsSchema = z.object({
  firstName: z.string().trim().max(100),
  lastName: z.string().trim().max(100),
  email: z.string().trim().max(254),
  phone: z.string().trim().max(40).default(""),
  country: z.string().trim().max(100).default(""),
  city: z.string().trim().max(100).default(""),
});

export type SubscriberDetails = z.infer<typeof subscriberDetailsSchema>;

function readJson(key: string): unknown {
  try {
    const raw = window.localStorage.getItem(key);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

/** The stored plan object, re-read from the catalogue so an edited price in storage changes nothing. */
export function readSelectedPlan(): Plan | null {
  const stored = readJson(SELECTED_PLAN_KEY) as { id?: unknown } | null;
  const id = z.enum(PLAN_IDS).safeParse(stored?.id);
  return id.success ? (findPlan(id.data) ?? null) : null;
}

export function storeSelectedPlan(plan: Plan): void {
  window.localStorage.setItem(SELECTED_PLAN_KEY, JSON.stringify(plan));
}

export function readSubscriberDetails(): SubscriberDetails | null {
  const parsed = subscriberDetailsSchema.safeParse(readJson(SUBSCRIBER_DETAILS_KEY));
  return parsed.success ? parsed.data : null;
}

export function storeSubscriberDetails(details: SubscriberDetails): void {
  window.localStorage.setItem(SUBSCRIBER_DETAILS_KEY, JSON.stringify(details));
}
