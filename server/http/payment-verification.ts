// The success page's verification as an answer: what POST /api/verify-payment sends, and what
// /payment-success's loader renders for a browser without JavaScript. Verdicts keep the storefront's
// shape `{ success: false, error, message }` with a telling status (decision 052).
import type { AppLoadContext } from "react-router";
import { customerOf } from "#server/domain/account/customer-auth.ts";
import { PaymentReversed } from "#server/domain/billing/errors.ts";
import { verifyPayment } from "#server/domain/billing/verify.ts";
import { DomainError } from "#server/domain/errors.ts";
import { statusOf } from "./api.ts";
import { readBuyerToken } from "./buyer-cookie.ts";

export interface VerificationAnswer {
  status: number;
  headers: Record<string, string>;
  /** The JSON body, as the browser reads it (dates as ISO strings). */
  body: Record<string, unknown>;
}

export async function verificationAnswer(
  request: Request,
  context: AppLoadContext,
  input: { sessionId: string; newDevice?: boolean },
): Promise<VerificationAnswer> {
  try {
    const verified = await verifyPayment(context.services, input, {
      clientIp: context.clientIp,
      buyerToken: await readBuyerToken(request),
      customerEmail: (await customerOf(context.services.customerAuth, request))?.email ?? null,
    });
    return {
      status: 200,
      headers: {},
      body: JSON.parse(JSON.stringify(verified)) as Record<string, unknown>,
    };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const { status, headers } = statusOf(error);
    return {
      status,
      headers,
      body: {
        success: false,
        error: error.error,
        message: error.message,
        ...(error instanceof PaymentReversed ? { [`${error.reversal}At`]: error.at.toISOString() } : {}),
      },
    };
  }
}

/** What the success page's "Add another device" form came to, for a browser without JavaScript. */
export type SuccessPageAddDevice =
  | { outcome: "added"; slot: number }
  /** Refunded or disputed meanwhile: the page itself says so. */
  | { outcome: "reversed" }
  | { outcome: "refused"; status: number; headers: Record<string, string>; error: string; message: string };

/**
 * The form's post: the same verification with `newDevice` as the page's script sends to
 * /api/verify-payment, under the same rules (the paying browser's cookie, or the owner signed in).
 */
export async function addDeviceFromSuccessPage(
  request: Request,
  context: AppLoadContext,
  sessionId: string,
): Promise<SuccessPageAddDevice> {
  const answer = await verificationAnswer(request, context, { sessionId, newDevice: true });
  const slot = answer.body.configSlot;
  if (answer.body.success === true && typeof slot === "number") return { outcome: "added", slot };
  if (answer.body.refundedAt || answer.body.disputedAt) return { outcome: "reversed" };
  return {
    outcome: "refused",
    status: answer.status === 200 ? 409 : answer.status,
    headers: answer.headers,
    error: typeof answer.body.error === "string" ? answer.body.error : "Conflict",
    message: typeof answer.body.message === "string" ? answer.body.message : "The device could not be added.",
  };
}
