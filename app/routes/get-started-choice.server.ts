// The purchase steps' forms (issue 36), which work without JavaScript: the plan and the buyer's details, posted by
// each step's form, kept in a cookie of this browser's own (HttpOnly, SameSite=Lax, a day) and
// read back by the next step's loader. With JavaScript the pages also keep them in localStorage
// (app/lib/purchase-storage.ts), which pre-fills; the cookie is what the server reads. Its
// contents are the buyer's own input, parsed again on every read, never trusted for a price.
import { createCookie, redirect, type AppLoadContext } from "react-router";
import { z } from "zod";
import type { Config } from "#server/config.ts";
import { PLAN_IDS } from "#core/plans.ts";
import { createCheckout } from "#server/domain/billing/checkout.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";
import { tooManyRequests } from "#server/http/api.ts";
import { buyerCookieHeader, buyerTokenFor } from "#server/http/buyer-cookie.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import { pageFormAction } from "#server/http/page-forms.ts";

export const PURCHASE_COOKIE = "naijalink_purchase";

const purchaseCookie = createCookie(PURCHASE_COOKIE, {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  maxAge: 24 * 60 * 60,
});

const text = (max: number) =>
  z
    .string()
    .transform((value) => value.trim())
    .pipe(z.string().max(max));

/** The details step's fields (the names localStorage keeps them under). */
export const subscriberDetailsSchema = z.object({
  firstName: text(100),
  lastName: text(100),
  email: text(254),
  phone: text(40).default(""),
  country: text(100).default(""),
  city: text(100).default(""),
});
export type StoredDetails = z.infer<typeof subscriberDetailsSchema>;

const purchaseChoiceSchema = z.object({
  planId: z.enum(PLAN_IDS).nullable().catch(null),
  details: subscriberDetailsSchema.nullable().catch(null),
});
export type PurchaseChoice = z.infer<typeof purchaseChoiceSchema>;

const NONE: PurchaseChoice = { planId: null, details: null };

/** What this browser chose so far (nothing when it has no cookie or a malformed one). */
export async function readPurchaseChoice(request: Request): Promise<PurchaseChoice> {
  const value: unknown = await purchaseCookie.parse(request.headers.get("Cookie")).catch(() => null);
  const parsed = purchaseChoiceSchema.safeParse(value ?? NONE);
  return parsed.success ? parsed.data : NONE;
}

/**
 * What the details and payment steps' loaders answer: whether any VPN server can take a device
 * (otherwise orders are paused and the page says so), and what this browser chose in the steps
 * before (the purchase cookie), shown without JavaScript.
 */
export async function purchaseStepState(request: Request, context: AppLoadContext) {
  const [sellable, choice] = await Promise.all([
    anyServerCanTakeDevice(context.services.db),
    readPurchaseChoice(request),
  ]);
  return { ordersPaused: !sellable, chosenPlanId: choice.planId, details: choice.details };
}

/** The `Set-Cookie` value that keeps `choice`. */
export function purchaseChoiceCookie(
  choice: PurchaseChoice,
  config: Pick<Config, "PUBLIC_URL">,
): Promise<string> {
  return purchaseCookie.serialize(choice, { secure: config.PUBLIC_URL.startsWith("https://") });
}

/** The plan step's form: one of the plans. */
export const choosePlanSchema = z.object({
  planId: z.enum(PLAN_IDS, { error: "Please select a plan first" }),
});

/** The details step's form: the plan chosen before (if any), and the details, first and last name and e-mail required. */
export const detailsStepSchema = subscriberDetailsSchema.extend({
  // Not required here: as with JavaScript, the payment step says "Please select a plan first".
  planId: z.enum(PLAN_IDS).nullable().catch(null),
  firstName: text(100).pipe(z.string().min(1, "Please fill in all required fields")),
  lastName: text(100).pipe(z.string().min(1, "Please fill in all required fields")),
  email: text(254)
    .pipe(z.string().min(1, "Please fill in all required fields"))
    .pipe(z.email("Please enter a valid email address")),
});

/** The payment step's form: what /api/create-checkout takes, and the ticked terms. */
export const paymentStepSchema = z.object({
  planId: z.enum(PLAN_IDS, { error: "Please select a plan first" }),
  customerEmail: text(254)
    .pipe(z.string().min(1, "Please fill in all required fields"))
    .pipe(z.email("Please enter a valid email address")),
  customerName: text(201).default(""),
  agree: z.literal("yes", { error: "Please agree to the 7-day guarantee policy to continue" }),
});

/** The plan step (and the plan buttons of / and /pricing): keep the plan, go on to the details. */
export function choosePlanAction(request: Request, context: AppLoadContext) {
  return pageFormAction(request, choosePlanSchema, async ({ planId }) => {
    const choice = await readPurchaseChoice(request);
    throw redirect("/get-started/details", {
      headers: {
        "Set-Cookie": await purchaseChoiceCookie({ ...choice, planId }, context.services.config),
      },
    });
  });
}

/** The details step: keep the plan and the details, go on to the payment step. */
export function detailsAction(request: Request, context: AppLoadContext) {
  return pageFormAction(request, detailsStepSchema, async ({ planId, ...details }) => {
    const choice = await readPurchaseChoice(request);
    const kept = { planId: planId ?? choice.planId, details };
    throw redirect("/get-started/payment", {
      headers: { "Set-Cookie": await purchaseChoiceCookie(kept, context.services.config) },
    });
  });
}

/**
 * The payment step: what /api/create-checkout does (its rate limit, the buyer cookie, the same
 * domain call), then on to the checkout (the built-in test checkout, or Stripe Checkout).
 */
export function paymentAction(request: Request, context: AppLoadContext) {
  return pageFormAction(request, paymentStepSchema, async (input) => {
    const { services } = context;
    const limit = await consumeRateLimit(services.db, `create-checkout:${context.clientIp}`, {
      limit: 30,
      windowMs: 60_000,
    });
    if (!limit.allowed) throw tooManyRequests(limit.retryAfterSeconds);
    const buyerToken = await buyerTokenFor(request);
    const checkout = await createCheckout(services, {
      planId: input.planId,
      customerEmail: input.customerEmail,
      customerName: input.customerName.replace(/\s+/g, " ").trim() || null,
      buyerToken,
    });
    throw redirect(checkout.url, {
      headers: { "Set-Cookie": await buyerCookieHeader(buyerToken, services.config) },
    });
  });
}
