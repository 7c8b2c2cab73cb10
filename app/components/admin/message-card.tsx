import { Link } from "react-router";
import { Badge } from "#app/components/ui/badge.tsx";
import { EmailAddress } from "#app/components/ui/email-address.tsx";
import { formatDateTimeUtc } from "#core/format.ts";
import { ReplyForm, ReplyThread, StatusButtons } from "./message-actions.tsx";
// Type-only: erased from the browser bundle.
import type { ContactMessageStatus } from "#server/db/schema/index.ts";
import type { StaffMessage } from "#server/domain/contact/messages.ts";

export type { MessageActionResult } from "./message-actions.tsx";

const STATUS_BADGES = {
  new: "warning",
  answered: "success",
  closed: "secondary",
} as const satisfies Record<ContactMessageStatus, string>;

export function MessageCard({
  message,
  retentionDays,
  supportEmail,
}: {
  message: StaffMessage;
  /** How long a closed message is kept, told beside the Close button. */
  retentionDays: number;
  /** Where replies are sent from. */
  supportEmail: string;
}) {
  const headingId = `message-${message.id}`;
  return (
    <article
      id={headingId}
      aria-labelledby={`${headingId}-subject`}
      className="grid gap-4 rounded-lg border p-4 lg:grid-cols-[1fr_16rem]"
    >
      <div className="min-w-0">
        <div className="flex flex-wrap items-center gap-2">
          <Badge variant={STATUS_BADGES[message.status]}>{message.status}</Badge>
          <span className="text-xs text-muted-foreground">{formatDateTimeUtc(message.createdAt)}</span>
        </div>
        <h2 id={`${headingId}-subject`} className="mt-2 break-words text-lg font-semibold">
          {message.subject}
        </h2>
        <p className="text-sm">
          {message.name} &lt;
          <EmailAddress address={message.email} />
          &gt;
        </p>
        <p className="mt-3 whitespace-pre-wrap break-words text-sm">{message.message}</p>
        {message.statusChangedAt ? (
          <p className="mt-3 text-xs text-muted-foreground">
            Status set {formatDateTimeUtc(message.statusChangedAt)} by {message.statusChangedBy}
          </p>
        ) : null}
        <ReplyThread replies={message.replies} />
        <StatusButtons message={message} retentionDays={retentionDays} />
        <ReplyForm message={message} supportEmail={supportEmail} />
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
                  · {subscription.status} · until {formatDateTimeUtc(subscription.expiresAt)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </aside>
    </article>
  );
}
