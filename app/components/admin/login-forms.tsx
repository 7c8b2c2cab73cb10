import { useEffect, useRef, useState, type ComponentProps, type ReactNode } from "react";
import { useFetcher } from "react-router";
import { toast } from "sonner";
import { Button } from "#app/components/ui/button.tsx";
import { CardContent, CardDescription, CardHeader } from "#app/components/ui/card.tsx";
import { LabelledInput } from "#app/components/ui/input.tsx";

/** What the sign-in page's action answers when it does not redirect. */
export type LoginAnswer =
  | { ok: true; intent: string; done?: string; step?: "two-factor" }
  /** `email`: what was typed, so the page a script-less browser gets back keeps it. */
  | { ok: false; error: string; message: string; email?: string };

/**
 * A fetcher for one of the page's forms: its answer is toasted once (the texts of docs/product.md §9.1). `pageAnswer`
 * is the action's answer when the browser posted the form itself (no JavaScript): shown inline.
 */
export function useLoginFetcher(pageAnswer?: LoginAnswer) {
  const fetcher = useFetcher<LoginAnswer>();
  const shown = useRef<LoginAnswer | undefined>(undefined);
  const data = fetcher.state === "idle" ? fetcher.data : undefined;
  useEffect(() => {
    if (!data || shown.current === data) return;
    shown.current = data;
    if (!data.ok) toast.error(data.message);
    else if (data.done) toast.success(data.done);
  }, [data]);
  return { fetcher, answer: fetcher.data ?? pageAnswer, busy: fetcher.state !== "idle" };
}

/** The outcome of a post made without JavaScript. */
export function LoginNotice({ answer }: { answer?: LoginAnswer }) {
  if (!answer || (answer.ok && !answer.done)) return null;
  return (
    <p role={answer.ok ? "status" : "alert"} className={answer.ok ? "text-sm" : "text-sm text-destructive"}>
      {answer.ok ? answer.done : answer.message}
    </p>
  );
}

/** A form's submit button: disabled, and saying so, while its post is under way. */
export function BusyButton({
  busy,
  children,
  ...props
}: Omit<ComponentProps<typeof Button>, "type" | "disabled"> & { busy: boolean }) {
  return (
    <Button type="submit" className="w-full" disabled={busy} {...props}>
      {busy ? "Loading..." : children}
    </Button>
  );
}

/** True once React runs in the browser: before that, nothing is disabled that only a script enables. */
function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

export function SignInForm({ pageAnswer }: { pageAnswer?: LoginAnswer }) {
  const { fetcher, answer, busy } = useLoginFetcher(pageAnswer);
  const hydrated = useHydrated();
  const [email, setEmail] = useState(pageAnswer && !pageAnswer.ok ? (pageAnswer.email ?? "") : "");
  const [password, setPassword] = useState("");
  if (answer?.ok && answer.step === "two-factor") return <TwoFactorCodeForm />;
  return (
    <>
      <CardHeader>
        <h1 className="text-2xl font-bold tracking-tight">Staff Sign In</h1>
        <CardDescription>Sign in to manage the NaijaLink blog.</CardDescription>
      </CardHeader>
      <CardContent>
        <fetcher.Form method="post" className="space-y-4">
          <LabelledInput
            id="email"
            label="Email"
            name="email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
          <LabelledInput
            id="password"
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
          <LoginNotice answer={pageAnswer} />
          <BusyButton busy={busy} name="intent" value="sign-in">
            Sign In
          </BusyButton>
          <Button
            type="submit"
            name="intent"
            value="sign-up"
            variant="outline"
            className="w-full"
            disabled={hydrated && (!email || !password || busy)}
          >
            Sign up with the same credentials
          </Button>
          <Button
            type="submit"
            name="intent"
            value="forgot"
            formNoValidate
            variant="link"
            className="w-full"
            disabled={hydrated && (!email || busy)}
          >
            Forgot your password?
          </Button>
        </fetcher.Form>
        <p className="mt-6 text-sm text-muted-foreground">
          Only authorised staff e-mail addresses can reach the admin panel, even after signing in.
        </p>
      </CardContent>
    </>
  );
}

/**
 * A form an e-mailed link leads to: it posts the link's token with one password field. The
 * page's action answers as for the other forms.
 */
export function TokenPasswordForm({
  intent,
  token,
  pageAnswer,
  title,
  description,
  field,
  submit,
  children,
}: {
  intent: string;
  token: string;
  pageAnswer?: LoginAnswer;
  title: string;
  description?: string;
  field: ComponentProps<typeof LabelledInput>;
  submit: string;
  children?: ReactNode;
}) {
  const { fetcher, busy } = useLoginFetcher(pageAnswer);
  return (
    <>
      <CardHeader>
        <h1 className="text-2xl font-bold tracking-tight">{title}</h1>
        {description ? <CardDescription>{description}</CardDescription> : null}
      </CardHeader>
      <CardContent>
        <fetcher.Form method="post" className="space-y-4">
          <input type="hidden" name="intent" value={intent} />
          <input type="hidden" name="token" value={token} />
          <LabelledInput type="password" required {...field} />
          <LoginNotice answer={pageAnswer} />
          <BusyButton busy={busy}>{submit}</BusyButton>
        </fetcher.Form>
        {children}
      </CardContent>
    </>
  );
}

export function NewPasswordForm({ token, pageAnswer }: { token: string; pageAnswer?: LoginAnswer }) {
  return (
    <TokenPasswordForm
      intent="reset"
      token={token}
      pageAnswer={pageAnswer}
      title="Choose a New Password"
      field={{
        id: "new-password",
        label: "New password",
        name: "newPassword",
        autoComplete: "new-password",
        minLength: 8,
      }}
      submit="Save Password"
    />
  );
}

/** The second step for staff who turned two-factor on: a code from the app or a backup code. */
function TwoFactorCodeForm() {
  const { fetcher, busy } = useLoginFetcher();
  const [backup, setBackup] = useState(false);
  const failed = fetcher.state === "idle" && fetcher.data && !fetcher.data.ok ? fetcher.data : undefined;
  return (
    <>
      <CardHeader>
        <h1 className="text-2xl font-bold tracking-tight">Two-Factor Check</h1>
        <CardDescription>
          {backup ? "Enter one of your backup codes." : "Enter the 6-digit code from your authenticator app."}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <fetcher.Form method="post" className="space-y-4">
          <input type="hidden" name="intent" value="two-factor" />
          <input type="hidden" name="backup" value={backup ? "1" : "0"} />
          <LabelledInput
            id="two-factor-code"
            label={backup ? "Backup code" : "Authentication code"}
            name="code"
            autoComplete="one-time-code"
            inputMode={backup ? "text" : "numeric"}
            required
          />
          <LoginNotice answer={failed} />
          <BusyButton busy={busy}>Verify</BusyButton>
          <Button type="button" variant="link" className="w-full" onClick={() => setBackup(!backup)}>
            {backup ? "Use the authenticator app" : "Use a backup code"}
          </Button>
        </fetcher.Form>
      </CardContent>
    </>
  );
}
