// Browser storage of the purchase flow, under the keys docs/product.md §4.1 names. No zod here: this
// module is in the client bundle of every page with a plan button.
import { findPlan, type Plan } from "#core/plans.ts";

export const SELECTED_PLAN_KEY = "selectedPlan";
export const SUBSCRIBER_DETAILS_KEY = "subscriberDetails";

export interface SubscriberDetails {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  country: string;
  city: string;
}

export const SUBSCRIBER_FIELDS = ["firstName", "lastName", "email", "phone", "country", "city"] as const;

const FIELD_LIMITS: Record<keyof SubscriberDetails, number> = {
  firstName: 100,
  lastName: 100,
  email: 254,
  phone: 40,
  country: 100,
  city: 100,
};

function readJson(key: string): unknown {
  try {
    const raw = window.localStorage.getItem(key);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

function writeJson(key: string, value: unknown): void {
  try {
    window.localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or blocked (private mode): the flow still works for this page view.
  }
}

/** The stored plan object, re-read from the catalogue so an edited price in storage changes nothing. */
export function readSelectedPlan(): Plan | null {
  const stored = readJson(SELECTED_PLAN_KEY) as { id?: unknown } | null;
  return typeof stored?.id === "string" ? (findPlan(stored.id) ?? null) : null;
}

export function storeSelectedPlan(plan: Plan): void {
  writeJson(SELECTED_PLAN_KEY, plan);
}

/** Cleans any stored shape into the six string fields (trimmed, length-capped). */
export function normaliseSubscriberDetails(value: unknown): SubscriberDetails | null {
  if (!value || typeof value !== "object") return null;
  const source = value as Record<string, unknown>;
  const details = {} as SubscriberDetails;
  for (const field of SUBSCRIBER_FIELDS) {
    const raw = source[field];
    details[field] = typeof raw === "string" ? raw.trim().slice(0, FIELD_LIMITS[field]) : "";
  }
  return details;
}

export function hasRequiredDetails(details: SubscriberDetails): boolean {
  return Boolean(details.firstName && details.lastName && details.email);
}

export function readSubscriberDetails(): SubscriberDetails | null {
  return normaliseSubscriberDetails(readJson(SUBSCRIBER_DETAILS_KEY));
}

export function storeSubscriberDetails(details: SubscriberDetails): void {
  writeJson(SUBSCRIBER_DETAILS_KEY, normaliseSubscriberDetails(details));
}
