import { Form, Link } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { EmailAddress } from "#app/components/ui/email-address.tsx";
import { Input } from "#app/components/ui/input.tsx";
import { ResponsiveTable, type Column } from "#app/components/ui/responsive-table.tsx";
import { adminPageMeta } from "#app/lib/meta.ts";
import { auditLogQuerySchema, auditTargetHref, listAuditLog } from "#server/domain/ops/audit.ts";
import { requireStaffPage } from "#server/http/staff-pages.ts";
import type { Route } from "./+types/admin-audit";

export const meta: Route.MetaFunction = ({ matches }) => adminPageMeta("Audit log", "/admin/audit", matches);

const FILTERS = [
  { name: "action", label: "Action", placeholder: "subscription.refund" },
  { name: "staffEmail", label: "Staff e-mail", placeholder: "admin@…" },
  { name: "targetType", label: "Target type", placeholder: "subscription" },
  { name: "targetId", label: "Target id", placeholder: "" },
] as const;

/** Read-only by design: the table refuses UPDATE and DELETE (migration 0020). */
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireStaffPage(request, context.services, "admin");
  const params = new URL(request.url).searchParams;
  const filters = Object.fromEntries(FILTERS.map(({ name }) => [name, params.get(name) || undefined]));
  const before = Number(params.get("before"));
  const query = auditLogQuerySchema.safeParse({
    ...filters,
    before: Number.isSafeInteger(before) && before > 0 ? before : undefined,
  });
  const page = query.success ? await listAuditLog(context.services.db, query.data) : null;
  return {
    filters,
    invalid: !query.success,
    entries: (page?.entries ?? []).map((entry) => ({
      ...entry,
      at: entry.at.toISOString(),
      href: auditTargetHref(entry),
    })),
    nextBefore: page?.nextBefore ?? null,
  };
}

type Entry = Route.ComponentProps["loaderData"]["entries"][number];

const AUDIT_COLUMNS: Column<Entry>[] = [
  {
    header: "When (UTC)",
    cell: (entry) => entry.at.slice(0, 19).replace("T", " "),
    className: "whitespace-nowrap",
  },
  {
    header: "Who",
    cell: (entry) => (
      <>
        <EmailAddress address={entry.staffEmail} />
        {entry.actor === "customer" ? <span className="text-muted-foreground"> (customer)</span> : null}
      </>
    ),
  },
  { header: "Action", cell: (entry) => entry.action, className: "font-mono" },
  { header: "Target", cell: (entry) => <AuditTarget entry={entry} /> },
  { header: "Reason", cell: (entry) => entry.reason ?? "—" },
  { header: "Details", cell: (entry) => <AuditDetails details={entry.details} /> },
];

/** What the entry touched, linked to its page when it has one. */
function AuditTarget({ entry }: { entry: Entry }) {
  const id = <span className="font-mono text-xs [overflow-wrap:anywhere]">{entry.targetId}</span>;
  if (!entry.href)
    return (
      <>
        {entry.targetType} {id}
      </>
    );
  return (
    <Link className="underline" to={entry.href}>
      {entry.targetType} {id}
    </Link>
  );
}

export default function AdminAudit({ loaderData }: Route.ComponentProps) {
  const { filters, invalid, entries, nextBefore } = loaderData;
  const older = new URLSearchParams(
    Object.entries({ ...filters, before: nextBefore ? String(nextBefore) : undefined }).filter(
      (pair): pair is [string, string] => Boolean(pair[1]),
    ),
  );
  return (
    <section className="px-4 py-8 md:px-8">
      <h1 className="text-2xl font-bold">Audit log</h1>
      <p className="mt-1 text-sm text-muted-foreground">
        Every staff action, newest first. Entries cannot be changed or removed.
      </p>
      <Form method="get" className="mt-6 grid gap-3 sm:grid-cols-2 lg:grid-cols-5 lg:items-end">
        {FILTERS.map(({ name, label, placeholder }) => (
          <label key={name} className="grid gap-1 text-sm">
            {label}
            <Input name={name} defaultValue={filters[name] ?? ""} placeholder={placeholder} />
          </label>
        ))}
        <Button type="submit">Filter</Button>
      </Form>
      {invalid ? (
        <p role="alert" className="mt-4 text-sm text-destructive">
          These filters are not valid: each is at most 200 characters.
        </p>
      ) : null}
      {entries.length === 0 ? (
        <p className="py-6 text-muted-foreground">No entries match.</p>
      ) : (
        <ResponsiveTable
          label="Audit entries"
          rows={entries}
          rowKey={(entry) => String(entry.id)}
          columns={AUDIT_COLUMNS}
          tableClassName="min-w-[48rem]"
          title={(entry) => <span className="font-mono">{entry.action}</span>}
        />
      )}
      {nextBefore ? (
        <Link className="mt-4 inline-block underline" to={`?${older.toString()}`}>
          Older entries
        </Link>
      ) : null}
    </section>
  );
}

/** Every field the entry recorded (what the action changed), as stored. */
function AuditDetails({ details }: { details: unknown }) {
  const fields = details && typeof details === "object" ? Object.entries(details) : [];
  if (fields.length === 0) return <>—</>;
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-2 text-xs">
      {fields.map(([name, value]) => (
        <div key={name} className="contents">
          <dt className="text-muted-foreground">{name}</dt>
          <dd className="font-mono [overflow-wrap:anywhere]">
            {typeof value === "string" ? value : JSON.stringify(value)}
          </dd>
        </div>
      ))}
    </dl>
  );
}
