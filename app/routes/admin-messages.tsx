import { Link, useRevalidator } from "react-router";
import { MessageCard } from "#app/components/admin/message-card.tsx";
import { adminPageMeta } from "#app/lib/meta.ts";
import { cn } from "#app/lib/utils.ts";
import { listMessages, messageListQuerySchema } from "#server/domain/contact/messages.ts";
import { RETENTION } from "#server/domain/ops/housekeeping.ts";
import { requireStaffPage } from "#server/http/staff-pages.ts";
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
    page: Number(params.get("page") || 1),
  });
  const retentionDays = RETENTION.closedMessageMs / 86_400_000;
  if (!query.success) return { invalid: true, retentionDays, status: null, list: null };
  return {
    invalid: false,
    retentionDays,
    status: query.data.status ?? null,
    list: await listMessages(context.services.db, query.data),
  };
}

function address(status: string | null | undefined, page = 1) {
  const params = new URLSearchParams();
  if (status) params.set("status", status);
  if (page > 1) params.set("page", String(page));
  const search = params.toString();
  return `/admin/messages${search ? `?${search}` : ""}`;
}

export default function AdminMessages({ loaderData }: Route.ComponentProps) {
  const { invalid, retentionDays, status, list } = loaderData;
  const revalidator = useRevalidator();
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
                onChanged={() => void revalidator.revalidate()}
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
