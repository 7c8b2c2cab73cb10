import { useSearchParams } from "react-router";
import { ConfirmEmailForm } from "#app/components/admin/confirm-email-form.tsx";
import { NewPasswordForm, SignInForm } from "#app/components/admin/login-forms.tsx";
import { Card } from "#app/components/ui/card.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import { loginAction } from "./admin-login-actions.server.ts";
import type { Route } from "./+types/admin-login";

export const meta: Route.MetaFunction = ({ matches }) => [
  ...pageMeta(
    { title: "Staff Sign In", description: "Sign in to the NaijaLink staff area.", path: "/admin/login" },
    matches,
  ),
  { name: "robots", content: "noindex" },
];

/** Sign in, sign up, password reset, the two-factor code and the address confirmation. */
export const action = loginAction;

/** Also where e-mailed links land: `?token=` a password reset, `?confirm=` a new account's confirmation. */
export default function AdminLogin({ actionData }: Route.ComponentProps) {
  const [searchParams] = useSearchParams();
  const resetToken = searchParams.get("token");
  const confirmToken = searchParams.get("confirm");
  return (
    <section className="flex justify-center px-4 py-16">
      <Card className="w-full max-w-md">
        {resetToken ? (
          <NewPasswordForm token={resetToken} pageAnswer={actionData} />
        ) : confirmToken ? (
          <ConfirmEmailForm token={confirmToken} pageAnswer={actionData} />
        ) : (
          <SignInForm pageAnswer={actionData} />
        )}
      </Card>
    </section>
  );
}
