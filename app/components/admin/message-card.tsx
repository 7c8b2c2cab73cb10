import { Link } from "react-router";
import { Badge } from "#app/components/ui/badge.tsx";
import { adminCall } from "./api.ts";
import { ConfirmAction } from "./confirm-action.tsx";
// Type-only: erased from the browser bundle.
import type { ContactMessageStatus } from "#server/db/schema/index.ts";
import type { StaffMessage } from "#server/domain/contact/messages.ts";

const STATUS_BADGES = {
  new: "warning",
  answered: "success",
  closed: "secondary",
} as const satisfies Record<ContactMessageStatus, string>;

interface StatusAction {
  to: ContactMessageStatus;
  label: string;
  done: string;
  describe: (email: string, retentionDays: number) => string;
}

const MARK_ANSWERED: StatusAction = {
  to: "answered",
  label: "Mark answered",
  done: "Message marked answered",
  describe: (email) => `Marks the message from ${email} as answered.`,
};
const CLOSE: StatusAction = {
  to: "closed",
  label: "Close",
  done: "Message closed",
  describe: (email, days) =>
    `Closes the message from ${email}. A closed message is deleted ${days} days after it was closed.`,
};
const REOPEN: StatusAction = {
  to: "new",
  label: "Reopen",
  done: "Message reopened",
  describe: (email) => `Puts the message from ${email} back among the new ones.`,
};

/** The status actions offered from each status; the server accepts any change to another status. */
const ACTIONS: Record<ContactMessageStatus, StatusAction[]> = {
  new: [MARK_ANSWERED, CLOSE],
  answered: [CLOSE, REOPEN],
  closed: [REOPEN],
};

export function formatUtc(iso: string): string {
  return `${new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" })} UTC`;
}

export function MessageCard({
  message,
  retentionDays,
  onChanged,
}: {
  message: StaffMessage;
  /** How long a closed message is kept, told before closing one. */
  retentionDays: number;
  onChanged: () => void;
}) {
  const headingId = `message-${message.id}`;
  return (
    <article
      aria-labelledby={headingId}
      className="grid gap-4 rounded-lg border p-4 lg:grid-cols-[1fr_16rem]"
    >
      <div className="min-w-0">
        <div className="flex flex-wrap items-center gap-2">
          <Badge variant={STATUS_BADGES[message.status]}>{message.status}</Badge>
          <span className="text-xs text-muted-foreground">{formatUtc(message.createdAt)}</span>
        </div>
        <h2 id={headingId} className="mt-2 break-words text-lg font-semibold">
          {message.subject}
        </h2>
        <p className="break-all text-sm">
          {message.name} &lt;{message.email}&gt;
        </p>
        <p className="mt-3 whitespace-pre-wrap break-words text-sm">{message.message}</p>
        {message.statusChangedAt ? (
          <p className="mt-3 text-xs text-muted-foreground">
            Status set {formatUtc(message.statusChangedAt)} by {message.statusChangedBy}
          </p>
        ) : null}
        <div className="mt-4 flex flex-wrap items-center gap-2">
          <a className="text-sm font-medium underline" href={message.replyHref}>
            Reply by e-mail
          </a>
          {ACTIONS[message.status].map((action) => (
            <ConfirmAction
              key={action.to}
              label={action.label}
              title={`${action.label}: ${message.subject}`}
              description={action.describe(message.email, retentionDays)}
              successMessage={action.done}
              run={(reason) => adminCall("messages/status", { id: message.id, status: action.to, reason })}
              onDone={onChanged}
            />
          ))}
        </div>
      </div>
      <aside aria-label={`Subscriptions of ${message.email}`} className="text-sm lg:border-l lg:pl-4">
        <h3 className="font-semibold">Customer&apos;s subscriptions</h3>
        {message.subscriptions.length === 0 ? (
          <p className="mt-1 text-muted-foreground">No subscription with this e-mail.</p>
        ) : (
          <ul className="mt-1 grid gap-2">
            {message.subscriptions.map((subscription) => (
              <li key={subscription.id}>
                <Link className="underline" to={subscription.href}>
                  {subscription.planName}
                </Link>{" "}
                <span className="text-muted-foreground">
                  · {subscription.status} · until {formatUtc(subscription.expiresAt)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </aside>
    </article>
  );
}
