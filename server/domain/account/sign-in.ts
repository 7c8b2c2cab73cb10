import { APIError } from "better-auth/api";
import { z } from "zod";
import { ACCOUNT_PAGE, CUSTOMER_CLIENT_IP_HEADER, type CustomerAuth } from "./customer-auth.ts";

export const signInLinkSchema = z.object({
  email: z.email("Enter the e-mail address you bought with.").max(254),
});

/** What a spent, expired or unknown sign-in link lands on. */
export const SIGN_IN_FAILED_PAGE = `${ACCOUNT_PAGE}?sign-in=failed`;

export type SignInLinkResult = { sent: true } | { sent: false; message: string };

/**
 * Asks for a sign-in link for the /account form. The answer is the same whether or not the
 * address has bought (only a buyer's mailbox receives the link); only a rate limit says otherwise.
 */
export async function requestSignInLink(
  auth: CustomerAuth,
  request: Request,
  clientIp: string,
  email: string,
): Promise<SignInLinkResult> {
  const headers = new Headers(request.headers);
  headers.set(CUSTOMER_CLIENT_IP_HEADER, clientIp);
  try {
    await auth.api.signInMagicLink({
      body: { email, callbackURL: ACCOUNT_PAGE, errorCallbackURL: SIGN_IN_FAILED_PAGE },
      headers,
    });
    return { sent: true };
  } catch (error) {
    if (error instanceof APIError && error.statusCode === 429) return { sent: false, message: error.message };
    throw error;
  }
}

/** Ends the customer session of this request; answers the `Set-Cookie` headers that clear its cookies. */
export async function signOutCustomer(auth: CustomerAuth, request: Request): Promise<Headers> {
  const response = await auth.api.signOut({ headers: request.headers, asResponse: true });
  const headers = new Headers();
  for (const cookie of response.headers.getSetCookie()) headers.append("Set-Cookie", cookie);
  return headers;
}
