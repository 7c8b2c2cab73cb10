import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { toast } from "sonner";
import { Button, type ButtonProps } from "#app/components/ui/button.tsx";
import type { JsonCallResult } from "#app/lib/json-call.ts";

interface ConfirmActionProps {
  /** The button that opens the dialog. */
  label: string;
  title: string;
  /** What will happen, in words staff can check before confirming. */
  description: ReactNode;
  confirmLabel?: string;
  variant?: ButtonProps["variant"];
  /** Extra inputs inside the form (e.g. a number of days); read them from the FormData. */
  fields?: ReactNode;
  /** Runs the action with the typed reason; a failure's message is shown and the dialog stays open. */
  run: (reason: string, form: FormData) => Promise<JsonCallResult<unknown>>;
  /** Called after success, e.g. to reload the page's data. */
  onDone?: () => void;
  successMessage: string;
}

/**
 * Every operations action of the staff console goes through this: a native modal dialog that asks
 * for a reason (recorded in the audit log) before anything changes.
 */
export function ConfirmAction(props: ConfirmActionProps) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await props.run(String(form.get("reason") ?? ""), form);
    setPending(false);
    if (!result.ok) {
      setError(result.message ?? "The action failed. Nothing was changed.");
      return;
    }
    setOpen(false);
    toast.success(props.successMessage);
    props.onDone?.();
  }

  return (
    <ConfirmDialog
      {...props}
      open={open}
      onOpenChange={(next) => {
        if (next) setError(null);
        setOpen(next);
      }}
    >
      {(content) => (
        <form onSubmit={submit} className={DIALOG_FORM_CLASS}>
          {content({ pending, error })}
        </form>
      )}
    </ConfirmDialog>
  );
}

export const DIALOG_FORM_CLASS = "grid gap-4 p-6";

type DialogContent = (state: { pending: boolean; error: string | null }) => ReactNode;

/**
 * The button and the native modal dialog of a confirmed action: title, description, the action's
 * own fields, the reason for the audit log, the failure's message, Cancel and confirm. `children`
 * wraps the content in the form that submits it (a plain form, or a fetcher's).
 */
export function ConfirmDialog(
  props: Omit<ConfirmActionProps, "run" | "onDone" | "successMessage"> & {
    open: boolean;
    onOpenChange: (open: boolean) => void;
    children: (content: DialogContent) => ReactNode;
  },
) {
  const id = useId();
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
        <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
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
      <Button type="button" size="sm" variant={props.variant ?? "outline"} onClick={() => onOpenChange(true)}>
        {props.label}
      </Button>
      <dialog
        ref={dialog}
        onClose={() => onOpenChange(false)}
        aria-labelledby={`${id}-title`}
        className="w-[min(32rem,calc(100vw-2rem))] rounded-lg border p-0 shadow-xl backdrop:bg-black/50"
      >
        {props.children(content)}
      </dialog>
    </>
  );
}
