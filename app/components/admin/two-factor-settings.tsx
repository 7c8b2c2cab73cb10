import { ShieldCheck } from "lucide-react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { Form, Link, useFetcher, useSearchParams } from "react-router";
import { toast } from "sonner";
import { Button } from "#app/components/ui/button.tsx";
import { Input, Label } from "#app/components/ui/input.tsx";
// Type-only: erased from the browser bundle.
import type { FormRefusal } from "#server/http/staff-form.ts";

export type TwoFactorIntent = "two-factor-enable" | "two-factor-verify" | "two-factor-disable";

/** Turned on, not confirmed yet: what the authenticator app needs, and the backup codes. */
export interface TwoFactorEnrolment {
  qr: string;
  secret: string;
  totpURI: string;
  backupCodes: string[];
}

/** What /admin/blog's action answers a two-factor form when it does not redirect. */
export type TwoFactorAnswer =
  | { ok: true; intent: "two-factor-enable"; enrolment: TwoFactorEnrolment }
  | { ok: true; intent: "two-factor-verify"; message: string; backupCodes: string[] }
  | { ok: false; intent: TwoFactorIntent; error: string; message: string; enrolment?: TwoFactorEnrolment };

/** The page's action data when it answers one of these forms (posted without JavaScript). */
export function twoFactorAnswerOf(actionData: unknown): TwoFactorAnswer | undefined {
  if (!actionData || typeof actionData !== "object" || !("intent" in actionData)) return undefined;
  const { intent } = actionData;
  return typeof intent === "string" && intent.startsWith("two-factor-")
    ? (actionData as TwoFactorAnswer)
    : undefined;
}

/** `?two-factor=setup` opens the password step: a GET form, so it opens without JavaScript too. */
const OPEN_PARAM = "two-factor";

/**
 * TOTP for the signed-in staff member: enrol with a QR code, confirm a code, keep the backup codes.
 * While staff are required to use it (`required`), it cannot be turned off here. Each step posts
 * to the page's action: with JavaScript through a fetcher (its answer toasted), without it as the
 * page's own post (`pageAnswer`, shown inline).
 */
export function TwoFactorSettings({
  enabled,
  required = false,
  pageAnswer,
}: {
  enabled: boolean;
  required?: boolean;
  pageAnswer?: TwoFactorAnswer;
}) {
  const fetcher = useFetcher<TwoFactorAnswer | FormRefusal>();
  const [searchParams] = useSearchParams();
  const [dismissed, setDismissed] = useState<unknown>(undefined);
  const busy = fetcher.state !== "idle";
  useRefusalToast(fetcher.state === "idle" ? fetcher.data : undefined);

  const latest = fetcher.data ? twoFactorAnswerOf(fetcher.data) : pageAnswer;
  const answer = latest === dismissed ? undefined : latest;
  const inlineRefusal = !fetcher.data && pageAnswer && !pageAnswer.ok ? pageAnswer.message : undefined;
  const dismiss = () => setDismissed(latest);

  if (answer?.ok && answer.intent === "two-factor-verify")
    return <BackupCodes codes={answer.backupCodes} onDone={dismiss} />;
  const enrolment = answer && "enrolment" in answer ? answer.enrolment : undefined;
  if (enrolment && !enabled)
    return (
      <Panel>
        <fetcher.Form method="post" className="space-y-3">
          <input type="hidden" name="intent" value="two-factor-verify" />
          <input type="hidden" name="totpURI" value={enrolment.totpURI} />
          <input type="hidden" name="backupCodes" value={enrolment.backupCodes.join(",")} />
          <p className="text-sm">Scan this code with your authenticator app, then enter the code it shows.</p>
          <img src={enrolment.qr} alt="QR code for your authenticator app" className="size-48" />
          <p className="break-all text-xs text-muted-foreground">
            Or type this key: <code data-testid="totp-secret">{enrolment.secret}</code>
          </p>
          <CodeList codes={enrolment.backupCodes} />
          <Label htmlFor="two-factor-confirm">Authentication code</Label>
          <Input
            id="two-factor-confirm"
            name="code"
            autoComplete="one-time-code"
            inputMode="numeric"
            required
          />
          <Refusal message={inlineRefusal} />
          <Button type="submit" disabled={busy}>
            {busy ? "Checking..." : "Turn on"}
          </Button>
        </fetcher.Form>
      </Panel>
    );

  const refusedPassword = answer && !answer.ok && answer.intent !== "two-factor-verify";
  const open = searchParams.get(OPEN_PARAM) === "setup" || refusedPassword;
  if (enabled && required) return <p className="text-sm text-muted-foreground">{STATUS_ON}</p>;
  if (!open)
    return (
      <div className="flex flex-wrap items-center gap-3">
        {enabled && <p className="text-sm text-muted-foreground">{STATUS_ON}</p>}
        <Form method="get" action="/admin/blog" preventScrollReset onSubmit={dismiss}>
          <input type="hidden" name={OPEN_PARAM} value="setup" />
          <Button type="submit" variant="outline">
            <ShieldCheck aria-hidden="true" /> {enabled ? "Turn off two-factor" : "Set up two-factor"}
          </Button>
        </Form>
      </div>
    );
  return (
    <Panel>
      <fetcher.Form method="post" className="space-y-3">
        <input type="hidden" name="intent" value={enabled ? "two-factor-disable" : "two-factor-enable"} />
        <Label htmlFor="two-factor-password">Confirm your password</Label>
        <Input
          id="two-factor-password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
        />
        <Refusal message={inlineRefusal} />
        <div className="flex gap-2">
          <Button type="submit" disabled={busy}>
            {busy ? "Checking..." : enabled ? "Turn off" : "Continue"}
          </Button>
          <Button asChild variant="ghost">
            <Link to="/admin/blog" preventScrollReset onClick={dismiss}>
              Cancel
            </Link>
          </Button>
        </div>
      </fetcher.Form>
    </Panel>
  );
}

const STATUS_ON = "Two-factor authentication is on.";

/** A fetcher's refusal, toasted once (better-auth's own message); its successes toast from a flash. */
function useRefusalToast(answer: TwoFactorAnswer | FormRefusal | undefined) {
  const shown = useRef<unknown>(undefined);
  useEffect(() => {
    if (!answer || answer.ok || shown.current === answer) return;
    shown.current = answer;
    toast.error(answer.message || "Something went wrong");
  }, [answer]);
}

function Panel({ children }: { children: ReactNode }) {
  return <div className="w-full rounded-lg border p-4 md:max-w-md">{children}</div>;
}

function Refusal({ message }: { message?: string }) {
  if (!message) return null;
  return (
    <p role="alert" className="text-sm text-destructive">
      {message}
    </p>
  );
}

function CodeList({ codes }: { codes: string[] }) {
  return (
    <>
      <p className="text-sm font-medium">
        Keep these backup codes somewhere safe. Each one signs you in once if you lose your phone.
      </p>
      <ul data-testid="backup-codes" className="grid grid-cols-2 gap-1 font-mono text-sm">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
    </>
  );
}

/** Confirmed (with JavaScript): the backup codes stay on screen until the user is done with them. */
function BackupCodes({ codes, onDone }: { codes: string[]; onDone(): void }) {
  return (
    <Panel>
      <div className="space-y-3">
        <CodeList codes={codes} />
        <Button asChild variant="outline">
          <Link to="/admin/blog" preventScrollReset onClick={onDone}>
            Done
          </Link>
        </Button>
      </div>
    </Panel>
  );
}
