import { useEffect, useRef, useState, type ReactNode } from "react";
import { Form, useActionData, useFetcher } from "react-router";
import { toast } from "sonner";
import { Button, type ButtonProps } from "#app/components/ui/button.tsx";

// The /account page's forms (issue 27): every change posts to the page's action, with or without
// JavaScript. A step that asks first (rename, revoke, new keys, move, a plan change) is opened by
// the address (`?device=…&step=…`, `?change=…`), so a plain GET form opens it too.

/** What the /account action answers when it refuses a change; shown by the form that was sent. */
export interface AccountActionRefusal {
  ok: false;
  intent: string;
  /** The device or subscription the form was about. */
  target: string;
  error: string;
  message: string;
}

function isRefusal(value: unknown): value is AccountActionRefusal {
  return typeof value === "object" && value !== null && "ok" in value && value.ok === false;
}

/**
 * A post about `target` (a device or subscription id): busy while it runs; its refusal, from the
 * fetcher (toasted too) or, after a post without JavaScript, from the page's action data.
 */
export function useAccountFetcher(intent: string, target: string) {
  const fetcher = useFetcher<AccountActionRefusal>({ key: `${intent}:${target}` });
  const pageData: unknown = useActionData();
  const toasted = useRef<unknown>(undefined);
  useEffect(() => {
    if (fetcher.state !== "idle" || !isRefusal(fetcher.data) || toasted.current === fetcher.data) return;
    toasted.current = fetcher.data;
    toast.error(fetcher.data.error, { description: fetcher.data.message });
  }, [fetcher.state, fetcher.data]);
  const fromPage =
    isRefusal(pageData) && pageData.intent === intent && pageData.target === target ? pageData : null;
  const refusal = fetcher.state === "idle" ? (isRefusal(fetcher.data) ? fetcher.data : fromPage) : null;
  return { fetcher, busy: fetcher.state !== "idle", refusal: refusal?.message ?? null };
}

export function RefusalMessage({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p role="alert" className="basis-full text-sm text-destructive">
      {message}
    </p>
  );
}

/** A button that opens a step: a GET form, so it works before (or without) JavaScript. */
export function StepButton({
  fields,
  children,
  ...button
}: { fields: Record<string, string>; children: ReactNode } & ButtonProps) {
  return (
    <Form method="get" action="/account" preventScrollReset className="contents">
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Button type="submit" variant="outline" {...button}>
        {children}
      </Button>
    </Form>
  );
}

/** Leaves a step unchanged: back to the plain page. */
export function StepCancel({ label = "Cancel", size }: { label?: string; size?: ButtonProps["size"] }) {
  return (
    <StepButton fields={{}} size={size}>
      {label}
    </StepButton>
  );
}

/** True once React runs in the browser: what only JavaScript can do is offered from then on. */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/**
 * Asks before a change that stops the installed config from working (issue 24): nothing happens
 * until the owner confirms; the cancel button leaves everything as it was.
 */
export function ConfirmDeviceChange({
  intent,
  deviceId,
  question,
  confirmLabel,
  cancelLabel,
}: {
  intent: string;
  deviceId: string;
  question: string;
  confirmLabel: string;
  cancelLabel: string;
}) {
  const { fetcher, busy, refusal } = useAccountFetcher(intent, deviceId);
  return (
    <div className="flex flex-col gap-2 rounded-md bg-red-50 p-3" role="alert">
      <p className="text-sm text-red-900">{question}</p>
      <div className="flex flex-wrap gap-2">
        <fetcher.Form method="post" className="contents">
          <input type="hidden" name="intent" value={intent} />
          <input type="hidden" name="deviceId" value={deviceId} />
          <Button type="submit" variant="destructive" disabled={busy}>
            {confirmLabel}
          </Button>
        </fetcher.Form>
        <StepCancel label={cancelLabel} />
      </div>
      <RefusalMessage message={refusal} />
    </div>
  );
}
