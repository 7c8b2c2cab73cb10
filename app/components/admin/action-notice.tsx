// Type-only: erased from the browser bundle.
import type { FormRefusal } from "#server/http/staff-form.ts";

/**
 * The outcome of a staff page's post made without JavaScript (the browser posted the form and the
 * page came back with the action's answer); with JavaScript each form shows its own outcome.
 */
export function ActionNotice({ answer }: { answer: { ok: true; done: string } | FormRefusal | undefined }) {
  if (!answer) return null;
  return (
    <p
      role={answer.ok ? "status" : "alert"}
      data-testid="action-notice"
      className={answer.ok ? "mt-4 text-sm" : "mt-4 text-sm text-destructive"}
    >
      {answer.ok ? answer.done : answer.message}
    </p>
  );
}
