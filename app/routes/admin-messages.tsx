import { z } from "zod";
import { Link } from "react-router";
import { MessageCard, type MessageActionResult } from "#app/components/admin/message-card.tsx";
import { adminPageMeta } from "#app/lib/meta.ts";
import { cn } from "#app/lib/utils.ts";
import {
  changeMessageStatus,
  listMessages,
  messageListQuerySchema,
  messageStatusChangeSchema,
} from "#server/domain/contact/messages.ts";
import { messageReplySchema, replyToMessage } from "#server/domain/contact/replies.ts";
import { RETENTION } from "#server/domain/ops/housekeeping.ts";
import { parseInput } from "#server/http/api.ts";
import { requireStaffPage, staffPageAction } from "#server/http/staff-pages.ts";
import type { Route } from "./+types/admin-messages";

export const meta: Route.MetaFunction = ({ matches }) =>
  adminPageMeta("Messages", "/admin/messages", matches);

const TABS = [
  { status: undefined, label: "All" },
  { status: "new", label: "New" },
  { status: "answered", label: "Answered" },
  { status: "closed", label: "Closed" },
] as const;

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaffPage(request, context.services, "admin");
  const params = new URL(request.url).searchParams;
  const query = messageListQuerySchema.safeParse({
    status: params.get("status") || undefined,
    id: params.get("id") || undefined,
    page: Number(params.get("page") || 1),
  });
  const retentionDays = RETENTION.closedMessageMs / 86_400_000;
  const supportEmail = context.services.config.SUPPORT_EMAIL;
  if (!query.success) return { invalid: true, retentionDays, supportEmail, status: null, list: null };
  return {
    invalid: false,
    retentionDays,
    supportEmail,
    status: query.data.status ?? null,
    list: await listMessages(context.services.db, query.data),
  };
}

/** The page's one action: a reply (sent and kept on the message) or a status change, no reason asked. */
const messageActionSchema = z.discriminatedUnion("intent", [
  messageReplySchema.extend({ intent: z.literal("reply") }),
  messageStatusChangeSchema.extend({ intent: z.literal("status") }),
]);

const STATUS_DONE = {
  answered: "Message marked answered",
  closed: "Message closed",
  new: "Message reopened",
};

export async function action({ request, context }: Route.ActionArgs) {
  return staffPageAction(request, context.services, "admin", async (staff, fields) => {
    const input = parseInput(messageActionSchema, fields);
    if (input.intent === "reply") {
      await replyToMessage(context.services, staff, input);
      return { ok: true, intent: "reply", id: input.id, done: "Reply sent" } satisfies MessageActionResult;
    }
    const changed = await changeMessageStatus(context.services.db, staff, input);
    return {
      ok: true,
      intent: "status",
      id: input.id,
      done: STATUS_DONE[changed.status],
    } satisfies MessageActionResult;
  });
}

function address(status: string | null | undefined, page = 1) {
  const params = new URLSearchParams();
  if (status) params.set("status", status);
  if (page > 1) params.set("page", String(page));
  const search = params.toString();
  return `/admin/messages${search ? `?${search}` : ""}`;
}

export default function AdminMessages({ loaderData, actionData }: Route.ComponentProps) {
  const { invalid, retentionDays, supportEmail, status, list } = loaderData;
  return (
    <section className="px-4 py-8 md:px-8">
      <h1 className="text-2xl font-bold">Messages</h1>
      <p className="mt-1 text-sm text-muted-foreground">
        {`What visitors sent through the contact form, newest first. A closed message is deleted ${retentionDays} days after it was closed.`}
      </p>
      <nav aria-label="Filter by status" className="mt-6 flex flex-wrap gap-2">
        {TABS.map((tab) => (
          <Link
            key={tab.label}
            to={address(tab.status)}
            aria-current={(tab.status ?? null) === status ? "page" : undefined}
            className={cn(
              "rounded-full border px-3 py-1 text-sm",
              (tab.status ?? null) === status && "bg-primary text-primary-foreground",
            )}
          >
            {tab.label}
          </Link>
        ))}
      </nav>
      {actionData ? (
        // Shown after a post without JavaScript; with it, each form shows its own outcome.
        <p role={actionData.ok ? "status" : "alert"} className="mt-4 text-sm">
          {actionData.ok ? actionData.done : actionData.message}
        </p>
      ) : null}
      {invalid ? (
        <p role="alert" className="mt-4 text-sm text-destructive">
          This address is not valid: choose a status above.
        </p>
      ) : null}
      {list ? (
        <>
          <div className="mt-6 grid gap-4">
            {list.messages.map((message) => (
              <MessageCard
                key={message.id}
                message={message}
                retentionDays={retentionDays}
                supportEmail={supportEmail}
              />
            ))}
          </div>
          {list.messages.length === 0 ? <p className="py-6 text-muted-foreground">No messages.</p> : null}
          <nav aria-label="Pages" className="mt-6 flex items-center gap-4 text-sm">
            {list.page > 1 ? (
              <Link className="underline" to={address(status, list.page - 1)}>
                Previous
              </Link>
            ) : null}
            <span>{`Page ${list.page} of ${list.pageCount} (${list.total} messages)`}</span>
            {list.page < list.pageCount ? (
              <Link className="underline" to={address(status, list.page + 1)}>
                Next
              </Link>
            ) : null}
          </nav>
        </>
      ) : null}
    </section>
  );
}
