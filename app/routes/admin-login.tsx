import { useState, type FormEvent } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { toast } from "sonner";
import { authCall } from "#app/components/admin/api.ts";
import { ConfirmEmailForm } from "#app/components/admin/confirm-email-form.tsx";
import { Button } from "#app/components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader } from "#app/components/ui/card.tsx";
import { Input, Label } from "#app/components/ui/input.tsx";
import { pageMeta } from "#app/lib/meta.ts";
import type { Route } from "./+types/admin-login";

export const meta: Route.MetaFunction = ({ matches }) => [
  ...pageMeta(
    { title: "Staff Sign In", description: "Sign in to the NaijaLink staff area.", path: "/admin/login" },
    matches,
  ),
  { name: "robots", content: "noindex" },
];

const ADMIN_HOME = "/admin/blog";

/** Also where e-mailed links land: `?token=` a password reset, `?confirm=` a new account's confirmation. */
export default function AdminLogin() {
  const [searchParams] = useSearchParams();
  const resetToken = searchParams.get("token");
  const confirmToken = searchParams.get("confirm");
  return (
    <section className="flex justify-center px-4 py-16">
      <Card className="w-full max-w-md">
        {resetToken ? (
          <NewPasswordForm token={resetToken} />
        ) : confirmToken ? (
          <ConfirmEmailForm token={confirmToken} adminHome={ADMIN_HOME} />
        ) : (
          <SignInForm />
        )}
      </Card>
    </section>
  );
}

function SignInForm() {
  const navigate = useNavigate();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [needsCode, setNeedsCode] = useState(false);

  async function signIn(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    const result = await authCall("sign-in/email", { email, password, callbackURL: ADMIN_HOME });
    setBusy(false);
    if (!result.ok) {
      toast.error(result.message || "Failed to log in");
      return;
    }
    if (result.data.twoFactorRedirect) {
      setNeedsCode(true);
      return;
    }
    toast.success("Logged in successfully");
    navigate(ADMIN_HOME);
  }

  if (needsCode) return <TwoFactorCodeForm onDone={() => navigate(ADMIN_HOME)} />;

  async function signUp() {
    setBusy(true);
    const name = email.split("@")[0] || email;
    const result = await authCall("sign-up/email", { email, password, name, callbackURL: ADMIN_HOME });
    setBusy(false);
    if (!result.ok) toast.error(result.message || "Failed to sign up");
    else toast.success("Check your email to confirm your account");
  }

  async function forgotPassword() {
    setBusy(true);
    await authCall("request-password-reset", { email, redirectTo: "/admin/login" });
    setBusy(false);
    toast.success("If this address has an account, a reset link is on its way.");
  }

  return (
    <>
      <CardHeader>
        <h1 className="text-2xl font-bold tracking-tight">Staff Sign In</h1>
        <CardDescription>Sign in to manage the NaijaLink blog.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={signIn} className="space-y-4">
          <div className="space-y-2">
            <Label htmlFor="email">Email</Label>
            <Input
              id="email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
          </div>
          <div className="space-y-2">
            <Label htmlFor="password">Password</Label>
            <Input
              id="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </div>
          <Button type="submit" className="w-full" disabled={busy}>
            {busy ? "Loading..." : "Sign In"}
          </Button>
          <Button
            type="button"
            variant="outline"
            className="w-full"
            disabled={!email || !password || busy}
            onClick={signUp}
          >
            Sign up with the same credentials
          </Button>
          <Button
            type="button"
            variant="link"
            className="w-full"
            disabled={!email || busy}
            onClick={forgotPassword}
          >
            Forgot your password?
          </Button>
        </form>
        <p className="mt-6 text-sm text-muted-foreground">
          Only authorised staff e-mail addresses can reach the admin panel, even after signing in.
        </p>
      </CardContent>
    </>
  );
}

function NewPasswordForm({ token }: { token: string }) {
  const navigate = useNavigate();
  const [newPassword, setNewPassword] = useState("");
  const [busy, setBusy] = useState(false);

  async function reset(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    const result = await authCall("reset-password", { newPassword, token });
    setBusy(false);
    if (!result.ok) {
      toast.error(result.message || "Failed to reset the password");
      return;
    }
    toast.success("Password changed. Sign in with the new password.");
    navigate("/admin/login", { replace: true });
  }

  return (
    <>
      <CardHeader>
        <h1 className="text-2xl font-bold tracking-tight">Choose a New Password</h1>
      </CardHeader>
      <CardContent>
        <form onSubmit={reset} className="space-y-4">
          <div className="space-y-2">
            <Label htmlFor="new-password">New password</Label>
            <Input
              id="new-password"
              type="password"
              autoComplete="new-password"
              required
              minLength={8}
              value={newPassword}
              onChange={(event) => setNewPassword(event.target.value)}
            />
          </div>
          <Button type="submit" className="w-full" disabled={!newPassword || busy}>
            {busy ? "Loading..." : "Save Password"}
          </Button>
        </form>
      </CardContent>
    </>
  );
}

/** The second step for staff who turned two-factor on: a code from the app or a backup code. */
function TwoFactorCodeForm({ onDone }: { onDone(): void }) {
  const [code, setCode] = useState("");
  const [backup, setBackup] = useState(false);
  const [busy, setBusy] = useState(false);

  async function verify(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    const path = backup ? "two-factor/verify-backup-code" : "two-factor/verify-totp";
    const result = await authCall(path, { code: code.trim() });
    setBusy(false);
    if (!result.ok) {
      toast.error(result.message || "Failed to log in");
      return;
    }
    toast.success("Logged in successfully");
    onDone();
  }

  return (
    <>
      <CardHeader>
        <h1 className="text-2xl font-bold tracking-tight">Two-Factor Check</h1>
        <CardDescription>
          {backup ? "Enter one of your backup codes." : "Enter the 6-digit code from your authenticator app."}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={verify} className="space-y-4">
          <div className="space-y-2">
            <Label htmlFor="two-factor-code">{backup ? "Backup code" : "Authentication code"}</Label>
            <Input
              id="two-factor-code"
              autoComplete="one-time-code"
              inputMode={backup ? "text" : "numeric"}
              required
              value={code}
              onChange={(event) => setCode(event.target.value)}
            />
          </div>
          <Button type="submit" className="w-full" disabled={!code || busy}>
            {busy ? "Loading..." : "Verify"}
          </Button>
          <Button type="button" variant="link" className="w-full" onClick={() => setBackup(!backup)}>
            {backup ? "Use the authenticator app" : "Use a backup code"}
          </Button>
        </form>
      </CardContent>
    </>
  );
}
