import { LogIn, Mail, MailCheck } from "lucide-react";
import { Form, useNavigation } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { Card, CardContent, CardHeader } from "#app/components/ui/card.tsx";
import { Input, Label } from "#app/components/ui/input.tsx";

export type SignInState =
  { state: "form"; error?: string; email?: string } | { state: "sent"; email: string };

/**
 * The signed-out /account: one field for the address used at checkout. A plain form (it works
 * before the page hydrates); the answer never says whether the address has bought.
 */
export function SignInCard({ view, linkFailed }: { view: SignInState; linkFailed: boolean }) {
  const navigation = useNavigation();
  const sending = navigation.state === "submitting";
  return (
    <Card className="mx-auto w-full max-w-md">
      {view.state === "sent" ? (
        <CardContent className="flex flex-col items-center gap-4 pt-8 text-center" data-testid="sign-in-sent">
          <MailCheck aria-hidden="true" className="size-12 text-primary" />
          <h2 className="text-xl font-semibold">Check your e-mail</h2>
          <p className="text-muted-foreground" role="status">
            If <strong className="break-all text-foreground">{view.email}</strong> has a NaijaLink plan, a
            sign-in link is on its way. It works once, for 15 minutes.
          </p>
          <p className="text-sm text-muted-foreground">
            Nothing arrived? Check the spam folder, or use the e-mail address you gave at checkout.
          </p>
        </CardContent>
      ) : (
        <>
          <CardHeader>
            <h2 className="text-xl font-semibold leading-tight">Sign in</h2>
            <p className="text-sm text-muted-foreground">
              Enter the e-mail address you used at checkout and we will send you a sign-in link. No password
              needed.
            </p>
          </CardHeader>
          <CardContent>
            {linkFailed ? (
              <p className="mb-4 rounded-md bg-red-100 p-3 text-sm text-red-800" role="alert">
                This sign-in link has expired or was already used. Ask for a new one below.
              </p>
            ) : null}
            <Form method="post" className="flex flex-col gap-3" noValidate>
              <Label htmlFor="account-email">E-mail address</Label>
              <Input
                id="account-email"
                name="email"
                type="email"
                autoComplete="email"
                inputMode="email"
                required
                defaultValue={view.email}
                aria-invalid={view.error ? true : undefined}
                aria-describedby={view.error ? "account-email-error" : undefined}
              />
              {view.error ? (
                <p id="account-email-error" className="text-sm text-destructive" role="alert">
                  {view.error}
                </p>
              ) : null}
              <Button type="submit" name="intent" value="sign-in" disabled={sending}>
                <Mail aria-hidden="true" />
                {sending ? "Sending..." : "Email me a sign-in link"}
              </Button>
            </Form>
          </CardContent>
        </>
      )}
    </Card>
  );
}

export interface ConfirmSignIn {
  action: string;
  fields: Record<string, string>;
}

/**
 * What the e-mailed link opens: one button that spends the one-time link. A plain GET form, so it
 * works before hydration; a mail scanner that fetches the link only sees this page.
 */
export function ConfirmSignInCard({ confirm }: { confirm: ConfirmSignIn }) {
  return (
    <Card className="mx-auto w-full max-w-md">
      <CardContent className="flex flex-col items-center gap-4 pt-8 text-center">
        <LogIn aria-hidden="true" className="size-12 text-primary" />
        <h2 className="text-xl font-semibold">Sign in to your account</h2>
        <p className="text-muted-foreground">Your sign-in link is ready. It works once.</p>
        <form method="get" action={confirm.action}>
          {Object.entries(confirm.fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <Button type="submit">
            <LogIn aria-hidden="true" />
            Sign in
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
