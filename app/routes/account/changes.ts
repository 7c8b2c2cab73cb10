import { data, redirect, type AppLoadContext } from "react-router";
import { z } from "zod";
import { flashCookie, type Flash } from "#server/http/flash.ts";
import { formatLongDate } from "#core/format.ts";
import { regionLabel } from "#core/locations.ts";
import { PLANS } from "#core/plans.ts";
import {
  addAccountDevice,
  moveAccountDevice,
  ownedSubscription,
  renameAccountDevice,
  replaceAccountDeviceKeys,
  revokeAccountDevice,
} from "#server/domain/account/account.ts";
import {
  accountBillingUrl,
  cancelAccountSubscription,
  refundAccountSubscription,
  resumeAccountSubscription,
} from "#server/domain/account/billing.ts";
import { customerOf, type Customer } from "#server/domain/account/customer-auth.ts";
import {
  addDeviceSchema,
  billingLinkSchema,
  cancelSubscriptionSchema,
  guaranteeRefundSchema,
  moveDeviceSchema,
  newKeysSchema,
  renameDeviceSchema,
  resumeSubscriptionSchema,
  revokeDeviceSchema,
} from "#server/domain/account/schemas.ts";
import {
  passCheckoutSchema,
  planChange,
  planChangeQuoteSchema,
  planChangeSchema,
  type PlanChangeQuote,
} from "#server/domain/billing/plan-change.ts";
import { DomainError } from "#server/domain/errors.ts";
import { ApiError, DEFAULT_BODY_LIMIT_BYTES, parseInput, statusOf } from "#server/http/api.ts";
import type { AccountActionRefusal } from "#app/components/account/account-form.tsx";

// The signed-in page's changes (issue 27): each form posts an `intent` with the fields of the
// change's /api/account/* schema; the same domain function (and its owner check) runs. A change
// that worked redirects back with a flash (a toast, or a notice without JavaScript); a refusal is
// returned as data for the form that was sent.

const accountChangeSchema = z.discriminatedUnion("intent", [
  addDeviceSchema.extend({ intent: z.literal("add-device") }),
  renameDeviceSchema.extend({ intent: z.literal("rename-device") }),
  revokeDeviceSchema.extend({ intent: z.literal("revoke-device") }),
  newKeysSchema.extend({ intent: z.literal("new-keys") }),
  moveDeviceSchema.extend({ intent: z.literal("move-device") }),
  cancelSubscriptionSchema.extend({ intent: z.literal("cancel") }),
  resumeSubscriptionSchema.extend({ intent: z.literal("resume") }),
  billingLinkSchema.extend({ intent: z.literal("billing") }),
  guaranteeRefundSchema.extend({ intent: z.literal("refund") }),
  planChangeSchema.extend({ intent: z.literal("change-plan") }),
  passCheckoutSchema.extend({ intent: z.literal("pass-checkout") }),
]);
type AccountChange = z.infer<typeof accountChangeSchema>;

export const SIGN_IN_FIRST: Flash = { type: "error", title: "Please sign in to your account first." };

/** Where a change sends the browser next, and what the page then says. */
interface Outcome {
  to: string;
  flash?: Flash;
}

const back = (title: string, description?: string, to = "/account"): Outcome => ({
  to,
  flash: { type: "success", title, description },
});

async function apply(change: AccountChange, customer: Customer, context: AppLoadContext): Promise<Outcome> {
  const { services } = context;
  switch (change.intent) {
    case "add-device": {
      const { slot } = await addAccountDevice(services, customer, change.subscriptionId);
      return back("Device Added", `The config for device ${slot} is ready.`);
    }
    case "rename-device":
      await renameAccountDevice(services, customer, change.deviceId, change.name);
      return back("Device renamed");
    case "revoke-device":
      await revokeAccountDevice(services, customer, change.deviceId);
      return back("Device revoked");
    case "new-keys":
      await replaceAccountDeviceKeys(services, customer, change.deviceId);
      return back("New keys ready: download the new config");
    case "move-device": {
      const moved = await moveAccountDevice(services, customer, change.deviceId, change.region);
      const to = `/account?${new URLSearchParams({ moved: change.deviceId })}`;
      return back(`Device moved to ${regionLabel(moved.server.region)}`, undefined, to);
    }
    case "cancel": {
      await cancelAccountSubscription(services, customer, change.subscriptionId);
      const { expiresAt } = await ownedSubscription(services.db, customer, change.subscriptionId);
      return back("Renewal Cancelled", `Your plan keeps working until ${formatLongDate(expiresAt)}.`);
    }
    case "resume":
      await resumeAccountSubscription(services, customer, change.subscriptionId);
      return back("Renewal Resumed", "Your plan renews as before.");
    case "refund":
      await refundAccountSubscription(services, customer, change.subscriptionId);
      return back(
        "Purchase Refunded",
        "Your payment is on its way back and this plan's configs have stopped working. A confirmation is in your e-mail.",
      );
    case "billing":
      return { to: (await accountBillingUrl(services, customer, change.subscriptionId)).url };
    case "change-plan": {
      const { intent: _, ...input } = change;
      const result = await planChange({ step: "change", services, by: { customer }, input });
      const name = PLANS.find((plan) => plan.id === input.planId)?.name ?? input.planId;
      return result.status === "applied"
        ? back("Plan Changed", `You are now on ${name}.`)
        : back(
            "Plan Change Requested",
            `Your change to ${name} takes effect as soon as the payment provider confirms it.`,
          );
    }
    case "pass-checkout": {
      const { intent: _, ...input } = change;
      const { url } = await planChange({ step: "pass-checkout", services, by: { customer }, input });
      return { to: url };
    }
  }
}

/** The form's fields as the change's schema reads them: one string each, the kept devices a list. */
function fieldsOf(form: FormData): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of form) {
    if (typeof value !== "string") continue;
    fields[name] = name === "keepDeviceIds" ? form.getAll(name).map(String) : value;
  }
  return fields;
}

function refusal(error: ApiError | DomainError, fields: Record<string, unknown>) {
  const target = fields.deviceId ?? fields.subscriptionId;
  const body: AccountActionRefusal = {
    ok: false,
    intent: typeof fields.intent === "string" ? fields.intent : "",
    target: typeof target === "string" ? target : "",
    error: error.error,
    message: error.message,
  };
  return data(body, { status: statusOf(error).status });
}

/** A change of the signed-in customer's account, posted as a form (the page's own, or a script's). */
export async function accountChange(request: Request, context: AppLoadContext, form: FormData) {
  const customer = await customerOf(context.services.customerAuth, request);
  // Signed out (the session ended, or a staff session, which is not a customer's): nothing changes.
  if (!customer)
    throw redirect("/account", {
      headers: { "Set-Cookie": flashCookie(context.services, SIGN_IN_FIRST) },
    });
  const fields = fieldsOf(form);
  try {
    const outcome = await apply(parseInput(accountChangeSchema, fields), customer, context);
    throw redirect(
      outcome.to,
      outcome.flash ? { headers: { "Set-Cookie": flashCookie(context.services, outcome.flash) } } : {},
    );
  } catch (error) {
    if (error instanceof ApiError || error instanceof DomainError) return refusal(error, fields);
    throw error;
  }
}

/** The posted form, or a refusal: a body too large for any of the page's forms, or not a form. */
export async function readAccountForm(request: Request): Promise<FormData | ApiError> {
  const tooLarge = new ApiError(413, "Payload too large", "The form is too large.");
  if (Number(request.headers.get("content-length") ?? "0") > DEFAULT_BODY_LIMIT_BYTES) return tooLarge;
  const contentType = request.headers.get("content-type") ?? "";
  if (/^multipart\/form-data\b/i.test(contentType)) return request.formData().catch(() => badForm);
  if (!/^application\/x-www-form-urlencoded\b/i.test(contentType)) return badForm;
  // A body without a length (chunked) is read up to the limit, not whole.
  let size = 0;
  const chunks: Uint8Array[] = [];
  const reader = request.body?.getReader();
  for (let chunk = await reader?.read(); reader && chunk && !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > DEFAULT_BODY_LIMIT_BYTES) {
      await reader.cancel();
      return tooLarge;
    }
    chunks.push(chunk.value);
  }
  const form = new FormData();
  for (const [name, value] of new URLSearchParams(Buffer.concat(chunks).toString("utf8")))
    form.append(name, value);
  return form;
}

const badForm = new ApiError(415, "Unsupported media type", "Send the form as a form.");

export const refusalOf = (error: ApiError) => refusal(error, {});

export interface PlanChangeView {
  subscriptionId: string;
  quote: PlanChangeQuote | null;
  refusal: string | null;
}

/**
 * The plan change the address asks for (`?change=<subscription>`, then `&planId=` to see its
 * terms): a link or a form without JavaScript opens it, so the quote is the loader's.
 */
export async function planChangeView(
  context: AppLoadContext,
  customer: Customer,
  query: URLSearchParams,
): Promise<PlanChangeView | null> {
  const subscriptionId = query.get("change");
  if (!subscriptionId) return null;
  const planId = query.get("planId");
  if (!planId) return { subscriptionId, quote: null, refusal: null };
  try {
    const input = parseInput(planChangeQuoteSchema, { subscriptionId, planId });
    const quote = await planChange({ step: "quote", services: context.services, by: { customer }, input });
    return { subscriptionId, quote, refusal: null };
  } catch (error) {
    if (error instanceof ApiError || error instanceof DomainError)
      return { subscriptionId, quote: null, refusal: error.message };
    throw error;
  }
}
