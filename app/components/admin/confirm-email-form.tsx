import { Link } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { CardContent, CardDescription, CardHeader } from "#app/components/ui/card.tsx";
import { Input, Label } from "#app/components/ui/input.tsx";
import { LoginNotice, useLoginFetcher, type LoginAnswer } from "./login-forms.tsx";

/**
 * Where the confirmation e-mail leads: the link alone does not confirm; the password chosen at
 * sign-up must come with it (decision 065). The page's action then signs in as usual, and on to
 * the admin area.
 */
export function ConfirmEmailForm({ token, pageAnswer }: { token: string; pageAnswer?: LoginAnswer }) {
  const { fetcher, busy } = useLoginFetcher(pageAnswer);
  return (
    <>
      <CardHeader>
        <h1 className="text-2xl font-bold tracking-tight">Confirm Your Account</h1>
        <CardDescription>Enter the password you chose when you signed up.</CardDescription>
      </CardHeader>
      <CardContent>
        <fetcher.Form method="post" className="space-y-4">
          <input type="hidden" name="intent" value="confirm" />
          <input type="hidden" name="token" value={token} />
          <div className="space-y-2">
            <Label htmlFor="confirm-password">Password</Label>
            <Input
              id="confirm-password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
            />
          </div>
          <LoginNotice answer={pageAnswer} />
          <Button type="submit" className="w-full" disabled={busy}>
            {busy ? "Loading..." : "Confirm"}
          </Button>
        </fetcher.Form>
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
