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
