import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { useFetcher } from "react-router";
import { Button, type ButtonProps } from "#app/components/ui/button.tsx";
// Type-only: erased from the browser bundle.
import type { IntentResult } from "#server/http/staff-form.ts";

interface ConfirmActionProps<T> {
  /** The button that opens the dialog. */
  label: string;
  title: string;
  /** What will happen, in words staff can check before confirming. */
  description: ReactNode;
  confirmLabel?: string;
  variant?: ButtonProps["variant"];
  /** Extra inputs inside the form (e.g. a number of days). */
  fields?: ReactNode;
  /** The page action's `intent` this form posts. */
  intent: string;
  /** Hidden fields naming what the action touches (e.g. `{ deviceId }`). */
  target?: Record<string, string>;
  /** Called with the action's result after success (the page's data reloads by itself). */
  onDone?: (result: T) => void;
}

/**
 * Every operations action of the staff console goes through this: a native modal dialog that asks
 * for a reason (recorded in the audit log), then a post to the page's route action. With
 * JavaScript a success is toasted from the action's flash (by the root layout, which outlives
 * this button) and a refusal shows inside the dialog; without it the browser posts the form and
 * the page shows the outcome.
 */
export function ConfirmAction<T = unknown>(props: ConfirmActionProps<T>) {
  const fetcher = useFetcher<IntentResult<T>>();
  const [open, setOpen] = useState(false);
  const answer = fetcher.state === "idle" ? fetcher.data : undefined;
  const shown = useRef<unknown>(undefined);
  const { onDone } = props;
  useEffect(() => {
    if (!answer?.ok || shown.current === answer) return;
    shown.current = answer;
    setOpen(false);
    onDone?.(answer.result);
  }, [answer, onDone]);
  return (
    <ConfirmDialog
      {...props}
      open={open}
      onOpenChange={(next) => {
        if (next) fetcher.reset();
        setOpen(next);
      }}
    >
      {(content) => (
        <fetcher.Form method="post" className={DIALOG_FORM_CLASS}>
          <input type="hidden" name="intent" value={props.intent} />
          {Object.entries(props.target ?? {}).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          {content({
            pending: fetcher.state !== "idle",
            error: answer && !answer.ok ? answer.message : null,
          })}
        </fetcher.Form>
      )}
    </ConfirmDialog>
  );
}

export const DIALOG_FORM_CLASS = "grid gap-4 p-6";

type DialogContent = (state: { pending: boolean; error: string | null }) => ReactNode;

/** Invoker commands: the browser opens and closes the dialog itself, also without JavaScript. */
const command = (dialogId: string, name: "show-modal" | "close") =>
  ({ commandfor: dialogId, command: name }) as Record<string, string>;

/**
 * The button and the native modal dialog of a confirmed action: title, description, the action's
 * own fields, the reason for the audit log, the failure's message, Cancel and confirm. `children`
 * wraps the content in the form that submits it.
 */
export function ConfirmDialog(
  props: Pick<
    ConfirmActionProps<unknown>,
    "label" | "title" | "description" | "confirmLabel" | "variant" | "fields"
  > & {
    open: boolean;
    onOpenChange: (open: boolean) => void;
    children: (content: DialogContent) => ReactNode;
  },
) {
  const id = useId();
  const dialogId = `${id}-dialog`;
  const dialog = useRef<HTMLDialogElement>(null);
  const { open, onOpenChange } = props;
  useEffect(() => {
    const element = dialog.current;
    if (open && !element?.open) element?.showModal();
    if (!open && element?.open) element.close();
  }, [open]);
  const content: DialogContent = ({ pending, error }) => (
    <>
      <h2 id={`${id}-title`} className="text-lg font-semibold">
        {props.title}
      </h2>
      <div className="text-sm text-muted-foreground">{props.description}</div>
      {props.fields}
      <label className="grid gap-1 text-sm font-medium">
        Reason (kept in the audit log)
        <textarea
          name="reason"
          required
          minLength={3}
          maxLength={500}
          rows={2}
          className="rounded-md border border-input px-3 py-2 font-normal"
        />
      </label>
      {error ? (
        <p role="alert" className="text-sm text-destructive">
          {error}
        </p>
      ) : null}
      <div className="flex justify-end gap-2">
        <Button
          type="button"
          variant="outline"
          {...command(dialogId, "close")}
          onClick={(event) => {
            event.preventDefault();
            onOpenChange(false);
          }}
        >
          Cancel
        </Button>
        <Button
          type="submit"
          variant={props.variant === "destructive" ? "destructive" : "default"}
          disabled={pending}
        >
          {pending ? "Working…" : (props.confirmLabel ?? props.label)}
        </Button>
      </div>
    </>
  );
  return (
    <>
      <Button
        type="button"
        size="sm"
        variant={props.variant ?? "outline"}
        {...command(dialogId, "show-modal")}
        onClick={(event) => {
          event.preventDefault();
          onOpenChange(true);
        }}
      >
        {props.label}
      </Button>
      <dialog
        ref={dialog}
        id={dialogId}
        onClose={() => onOpenChange(false)}
        aria-labelledby={`${id}-title`}
        className="w-[min(32rem,calc(100vw-2rem))] rounded-lg border p-0 shadow-xl backdrop:bg-black/50"
      >
        {props.children(content)}
      </dialog>
    </>
  );
}
