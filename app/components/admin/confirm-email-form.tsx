import { useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router";
import { toast } from "sonner";
import { Button } from "#app/components/ui/button.tsx";
import { CardContent, CardDescription, CardHeader } from "#app/components/ui/card.tsx";
import { Input, Label } from "#app/components/ui/input.tsx";
import { authCall } from "./api.ts";

/**
 * Where the confirmation e-mail leads: the link alone does not confirm; the password chosen at
 * sign-up must come with it (decision 065). Then the usual sign-in, and on to the admin area.
 */
export function ConfirmEmailForm({ token, adminHome }: { token: string; adminHome: string }) {
  const navigate = useNavigate();
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);

  async function confirm(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    const confirmed = await authCall("confirm-email", { token, password });
    if (!confirmed.ok) {
      setBusy(false);
      toast.error(confirmed.message || "Failed to confirm your account");
      return;
    }
    const email = String(confirmed.data.email);
    const signedIn = await authCall("sign-in/email", { email, password });
    setBusy(false);
    if (!signedIn.ok || signedIn.data.twoFactorRedirect) {
      toast.success("Your account is confirmed. Sign in to continue.");
      navigate("/admin/login", { replace: true });
      return;
    }
    toast.success("Logged in successfully");
    navigate(adminHome);
  }

  return (
    <>
      <CardHeader>
        <h1 className="text-2xl font-bold tracking-tight">Confirm Your Account</h1>
        <CardDescription>Enter the password you chose when you signed up.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={confirm} className="space-y-4">
          <div className="space-y-2">
            <Label htmlFor="confirm-password">Password</Label>
            <Input
              id="confirm-password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </div>
          <Button type="submit" className="w-full" disabled={!password || busy}>
            {busy ? "Loading..." : "Confirm"}
          </Button>
        </form>
        <p className="mt-6 text-sm text-muted-foreground">
          Did not sign up yourself, or forgot the password?{" "}
          <Link to="/admin/login" className="underline">
            Choose a new password
          </Link>{" "}
          with Forgot your password? on the sign-in page.
        </p>
      </CardContent>
    </>
  );
}
