import type { z } from "zod";
import {
  changePlan,
  quotePlanChange,
  type PlanChangeInput,
  type PlanChangeQuote,
  type PlanChangeResult,
  type planChangeQuoteSchema,
} from "#server/domain/billing/plan-changes.ts";
import { startPassCheckout, type passCheckoutSchema } from "#server/domain/billing/pass-changes.ts";
import { ownedSubscription, type AccountServices } from "./account.ts";
import type { Customer } from "./customer-auth.ts";

// The account page's plan changes: billing's functions behind the owner check, so
// someone else's subscription is "not found".

export async function quoteAccountPlanChange(
  services: AccountServices,
  customer: Customer,
  input: z.infer<typeof planChangeQuoteSchema>,
  now = new Date(),
): Promise<PlanChangeQuote> {
  await ownedSubscription(services.db, customer, input.subscriptionId);
  return quotePlanChange(services, input, now);
}

export async function changeAccountPlan(
  services: AccountServices,
  customer: Customer,
  input: PlanChangeInput,
  now = new Date(),
): Promise<PlanChangeResult> {
  await ownedSubscription(services.db, customer, input.subscriptionId);
  return changePlan(services, input, null, now);
}

export async function startAccountPassCheckout(
  services: AccountServices,
  customer: Customer,
  input: z.infer<typeof passCheckoutSchema>,
  now = new Date(),
): Promise<{ url: string }> {
  await ownedSubscription(services.db, customer, input.subscriptionId);
  const { url } = await startPassCheckout(services, input, now);
  return { url };
}
