import { Download } from "lucide-react";
import { Form } from "react-router";
import { Button } from "#app/components/ui/button.tsx";
import { Input } from "#app/components/ui/input.tsx";
import type { ExportKind } from "#server/domain/ops/export-sources.ts";

/**
 * Downloads a CSV of `kind` created between two days (decision 106). A plain form POST that the
 * browser itself sends (`reloadDocument`), so the file streams to disk, with or without JavaScript.
 */
const WHAT: Record<ExportKind, string> = {
  orders: "Every order",
  subscriptions: "Every subscription",
  ledger: "Every payment, credit, refund and dispute (the ledger)",
};

export function ExportForm({ kind, today }: { kind: ExportKind; today: string }) {
  return (
    <Form
      method="post"
      action="/api/admin/export"
      reloadDocument
      aria-label={`Export ${kind} as CSV`}
      className="mt-6 flex flex-wrap items-end gap-3 rounded-lg border p-4 text-sm"
    >
      <input type="hidden" name="kind" value={kind} />
      <label className="grid gap-1">
        From
        <Input type="date" name="from" required max={today} defaultValue={`${today.slice(0, 8)}01`} />
      </label>
      <label className="grid gap-1">
        To (included)
        <Input type="date" name="to" required max={today} defaultValue={today} />
      </label>
      <Button type="submit" variant="outline">
        <Download aria-hidden="true" /> Export CSV
      </Button>
      <p className="basis-full text-xs text-muted-foreground">
        {WHAT[kind]} in the range, UTC days; the export is kept in the audit log.
      </p>
    </Form>
  );
}
