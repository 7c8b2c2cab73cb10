import { useEffect, useRef } from "react";
import { useFetcher } from "react-router";
import { toast } from "sonner";
import { Button } from "#app/components/ui/button.tsx";
import { Textarea } from "#app/components/ui/input.tsx";
import { formatDateTimeUtc } from "#core/format.ts";
// Type-only: erased from the browser bundle.
import type { ContactMessageStatus } from "#server/db/schema/index.ts";
import type { StaffMessage } from "#server/domain/contact/messages.ts";
import type { MessageReply } from "#server/domain/contact/replies.ts";
import type { ActionRefusal } from "#server/http/staff-pages.ts";

/** What the /admin/messages action answers. */
export type MessageActionResult =
  { ok: true; intent: "reply" | "status"; id: string; done: string } | ActionRefusal;

interface StatusAction {
  to: ContactMessageStatus;
  label: string;
}

/**
 * The status actions offered from each status (the server accepts any change to another one).
 * Low-risk, so no reason is asked (issue 24); each is still audited.
 */
const ACTIONS: Record<ContactMessageStatus, StatusAction[]> = {
  new: [
    { to: "answered", label: "Mark answered" },
    { to: "closed", label: "Close" },
  ],
  answered: [
    { to: "closed", label: "Close" },
    { to: "new", label: "Reopen" },
  ],
  closed: [{ to: "new", label: "Reopen" }],
};

/** A fetcher whose outcome is toasted once when it succeeds; `onDone` runs then too. */
function useMessageFetcher(onDone?: () => void) {
  const fetcher = useFetcher<MessageActionResult>();
  const shown = useRef<MessageActionResult | undefined>(undefined);
  useEffect(() => {
    if (fetcher.state !== "idle" || !fetcher.data || shown.current === fetcher.data) return;
    shown.current = fetcher.data;
    if (fetcher.data.ok) {
      toast.success(fetcher.data.done);
      onDone?.();
    }
  }, [fetcher.state, fetcher.data, onDone]);
  const refusal = fetcher.state === "idle" && fetcher.data && !fetcher.data.ok ? fetcher.data.message : null;
  return { fetcher, busy: fetcher.state !== "idle", refusal };
}

export function StatusButtons({ message, retentionDays }: { message: StaffMessage; retentionDays: number }) {
  const { fetcher, busy, refusal } = useMessageFetcher();
  const actions = ACTIONS[message.status];
  return (
    <fetcher.Form method="post" className="mt-4 flex flex-wrap items-center gap-2">
      <input type="hidden" name="intent" value="status" />
      <input type="hidden" name="id" value={message.id} />
      {actions.map((action) => (
        <Button
          key={action.to}
          type="submit"
          name="status"
          value={action.to}
          size="sm"
          variant="outline"
          disabled={busy}
        >
          {action.label}
        </Button>
      ))}
      {actions.some((action) => action.to === "closed") ? (
        <span className="text-xs text-muted-foreground">{`A closed message is deleted ${retentionDays} days later.`}</span>
      ) : null}
      {refusal ? (
        <p role="alert" className="basis-full text-sm text-destructive">
          {refusal}
        </p>
      ) : null}
    </fetcher.Form>
  );
}

export function ReplyForm({ message, supportEmail }: { message: StaffMessage; supportEmail: string }) {
  const form = useRef<HTMLFormElement>(null);
  const { fetcher, busy, refusal } = useMessageFetcher(() => form.current?.reset());
  const fieldId = `reply-${message.id}`;
  return (
    <fetcher.Form ref={form} method="post" className="mt-4 grid gap-2">
      <input type="hidden" name="intent" value="reply" />
      <input type="hidden" name="id" value={message.id} />
      <label htmlFor={fieldId} className="text-sm font-medium">
        {`Reply to ${message.name}`}
      </label>
      <Textarea id={fieldId} name="body" required maxLength={10_000} rows={4} className="min-h-24" />
      <p className="text-xs text-muted-foreground">
        {`Sent from ${supportEmail} as an answer to this message, which is quoted below it. The reply is kept here.`}
      </p>
      {refusal ? (
        <p role="alert" className="text-sm text-destructive">
          {refusal}
        </p>
      ) : null}
      <div>
        <Button type="submit" size="sm" disabled={busy}>
          {busy ? "Sending…" : "Send reply"}
        </Button>
      </div>
    </fetcher.Form>
  );
}

const DELIVERY: Record<NonNullable<MessageReply["delivery"]>, string> = {
  sent: "sent",
  waiting: "waiting to be sent",
  failed: "could not be delivered",
};

/** Staff's replies under the message, oldest first, with who sent each and when. */
export function ReplyThread({ replies }: { replies: MessageReply[] }) {
  if (replies.length === 0) return null;
  return (
    <ol aria-label="Replies" className="mt-4 grid gap-3 border-l-2 pl-3">
      {replies.map((reply) => (
        <li key={reply.id} className="text-sm">
          <p className="text-xs text-muted-foreground">
            {`Reply by ${reply.staffEmail}, ${formatDateTimeUtc(reply.sentAt)}${reply.delivery ? ` · ${DELIVERY[reply.delivery]}` : ""}`}
          </p>
          <p className="mt-1 whitespace-pre-wrap break-words">{reply.body}</p>
        </li>
      ))}
    </ol>
  );
}
