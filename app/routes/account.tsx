import { LogOut } from "lucide-react";
import { data, Form, Link, redirect, type ShouldRevalidateFunctionArgs } from "react-router";
import {
  ConfirmSignInCard,
  SignInCard,
  type ConfirmSignIn,
  type SignInState,
} from "#app/components/account/sign-in-card.tsx";
import { SubscriptionCard } from "#app/components/account/subscription-card.tsx";
import { PageHero } from "#app/components/page-hero.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { NOTICE_CLASS } from "#app/lib/notice.ts";
import { FlashNotice } from "#app/components/flash-notice.tsx";
import { listAccount } from "#server/domain/account/account.ts";
import { ACCOUNT_PAGE, customerOf, SIGN_IN_VERIFY_PATH } from "#server/domain/account/customer-auth.ts";
import {
  requestSignInLink,
  SIGN_IN_FAILED_PAGE,
  signInLinkSchema,
  signOutCustomer,
} from "#server/domain/account/sign-in.ts";
import { ApiError } from "#server/http/api.ts";
import type { Route } from "./+types/account";
import { accountChange, planChangeView, readAccountForm, refusalOf } from "./account/changes.ts";

export const meta: Route.MetaFunction = ({ matches }) => [
  ...pageMeta(
    { title: "Your Account", description: "Your NaijaLink plans and devices.", path: "/account" },
    matches,
  ),
  { name: "robots", content: "noindex" },
];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { services } = context;
  const now = new Date();
  const customer = await customerOf(services.customerAuth, request);
  const query = new URL(request.url).searchParams;
  if (!customer) {
    return {
      signedIn: false as const,
      linkFailed: query.get("sign-in") === "failed",
      confirm: confirmSignIn(query.get("token")),
      now: now.toISOString(),
    };
  }
  return {
    signedIn: true as const,
    email: customer.email,
    subscriptions: await listAccount(services, customer, now),
    planChange: await planChangeView(context, customer, query),
    refundStep: query.get("refund"),
    now: now.toISOString(),
  };
}

/** The e-mailed link's token, as the hidden fields of the form that spends it (decision 067). */
function confirmSignIn(token: string | null): ConfirmSignIn | null {
  if (!token || !/^[A-Za-z0-9_-]{16,128}$/.test(token)) return null;
  return {
    action: SIGN_IN_VERIFY_PATH,
    fields: { token, callbackURL: ACCOUNT_PAGE, errorCallbackURL: SIGN_IN_FAILED_PAGE },
  };
}

/** The signed-out form asks for a link; the signed-in page signs out or changes the account. */
export async function action({ request, context }: Route.ActionArgs) {
  const { customerAuth } = context.services;
  const form = await readAccountForm(request);
  if (form instanceof ApiError) return refusalOf(form);
  const intent = form.get("intent");
  if (intent === "sign-out") {
    throw redirect("/account", { headers: await signOutCustomer(customerAuth, request) });
  }
  if (intent !== null && intent !== "sign-in") return accountChange(request, context, form);
  const email = String(form.get("email") ?? "").trim();
  const parsed = signInLinkSchema.safeParse({ email });
  if (!parsed.success)
    return data<SignInState>(
      { state: "form", email, error: parsed.error.issues[0]!.message },
      { status: 400 },
    );
  const result = await requestSignInLink(customerAuth, request, context.clientIp, parsed.data.email);
  if (!result.sent)
    return data<SignInState>({ state: "form", email, error: result.message }, { status: 429 });
  return data<SignInState>({ state: "sent", email: parsed.data.email });
}

/** After a refused change too: it may have been refused because the page was out of date. */
export const shouldRevalidate = ({ formMethod, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) =>
  formMethod?.toUpperCase() === "POST" || defaultShouldRevalidate;

export default function Account({ loaderData, actionData }: Route.ComponentProps) {
  if (!loaderData.signedIn) {
    return (
      <>
        <PageHero title="Your Account">
          <p>Your plans, renewal dates and devices, in one place.</p>
        </PageHero>
        <section aria-label="Sign in" className="px-4 pb-16">
          <FlashNotice testId="account-notice" />
          {loaderData.confirm && !actionData ? (
            <ConfirmSignInCard confirm={loaderData.confirm} />
          ) : (
            <SignInCard view={signInState(actionData)} linkFailed={loaderData.linkFailed} />
          )}
        </section>
      </>
    );
  }
  const { email, subscriptions, planChange, refundStep, now } = loaderData;
  return (
    <section className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-12">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">Your Account</h1>
          <p className="break-all text-muted-foreground" data-testid="account-email">
            Signed in as {email}
          </p>
        </div>
        <Form method="post">
          <Button type="submit" name="intent" value="sign-out" variant="outline">
            <LogOut aria-hidden="true" />
            Sign out
          </Button>
        </Form>
      </div>
      <FlashNotice testId="account-notice" />
      {actionData && "ok" in actionData ? (
        // After a post without JavaScript; the form that was sent says it too, where it is shown.
        <div role="alert" className={NOTICE_CLASS.alert} data-testid="account-refusal">
          <p className="font-semibold">{actionData.error}</p>
          <p>{actionData.message}</p>
        </div>
      ) : null}
      {subscriptions.length === 0 ? (
        <p className="text-muted-foreground">
          There is no plan for this address yet.{" "}
          <Link to="/pricing" className="font-medium text-primary underline underline-offset-2">
            See the plans
          </Link>
          .
        </p>
      ) : (
        subscriptions.map((subscription) => (
          <SubscriptionCard
            key={subscription.id}
            subscription={subscription}
            now={now}
            planChange={planChange?.subscriptionId === subscription.id ? planChange : null}
            refundStep={refundStep === subscription.id}
          />
        ))
      )}
      <p className="text-sm text-muted-foreground">
        New to WireGuard?{" "}
        <Link to="/tutorial" className="font-medium text-primary underline underline-offset-2">
          How to set up WireGuard
        </Link>
        {" · "}
        <Link to="/check" className="font-medium text-primary underline underline-offset-2">
          Am I connected through Nigeria?
        </Link>
      </p>
    </section>
  );
}

/** The sign-in form's own answer (not a refusal of a signed-in change, which its form shows). */
function signInState(actionData: Route.ComponentProps["actionData"]): SignInState {
  return actionData && "state" in actionData ? actionData : { state: "form" };
}
