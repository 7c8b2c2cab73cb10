import { Link } from "react-router";
import { TokenPasswordForm, type LoginAnswer } from "./login-forms.tsx";

/**
 * Where the confirmation e-mail leads: the link alone does not confirm; the password chosen at
 * sign-up must come with it (decision 065). The page's action then signs in as usual, and on to
 * the admin area.
 */
export function ConfirmEmailForm({ token, pageAnswer }: { token: string; pageAnswer?: LoginAnswer }) {
  return (
    <TokenPasswordForm
      intent="confirm"
      token={token}
      pageAnswer={pageAnswer}
      title="Confirm Your Account"
      description="Enter the password you chose when you signed up."
      field={{
        id: "confirm-password",
        label: "Password",
        name: "password",
        autoComplete: "current-password",
      }}
      submit="Confirm"
    >
      <p className="mt-6 text-sm text-muted-foreground">
        Did not sign up yourself, or forgot the password?{" "}
        <Link to="/admin/login" className="underline">
          Choose a new password
        </Link>{" "}
        with Forgot your password? on the sign-in page.
      </p>
    </TokenPasswordForm>
  );
}
