import { Link } from "react-router";
import { ScrollRegion } from "#app/components/ui/scroll-region.tsx";
import { Badge } from "#app/components/ui/badge.tsx";
import { formatLongDate, formatMoney } from "#core/format.ts";
import type { BillingHistoryEntry } from "#server/domain/billing/history.ts";

const STATUS_BADGES: Record<
  BillingHistoryEntry["status"],
  { label: string; variant: "success" | "purple" | "danger" | "warning" }
> = {
  paid: { label: "Paid", variant: "success" },
  refunded: { label: "Refunded", variant: "purple" },
  disputed: { label: "Disputed", variant: "danger" },
  credited: { label: "Credited", variant: "purple" },
  won: { label: "Won", variant: "success" },
  lost: { label: "Lost", variant: "danger" },
  awaiting: { label: "Awaiting payment", variant: "warning" },
};

/** Each row of the ledger: date, what, plan, amount, status, and a payment's receipt. */
export function BillingHistoryTable({ entries }: { entries: BillingHistoryEntry[] }) {
  if (entries.length === 0) return <p className="text-muted-foreground">No payments yet.</p>;
  return (
    <ScrollRegion label="Payment history (scrolls sideways)">
      <table className="w-full min-w-[36rem] text-left text-sm" data-testid="billing-history">
        <thead className="border-b text-xs uppercase text-muted-foreground">
          <tr>
            <th className="py-2 pr-4">Date</th>
            <th className="py-2 pr-4">What</th>
            <th className="py-2 pr-4">Plan</th>
            <th className="py-2 pr-4 text-right">Amount</th>
            <th className="py-2 pr-4">Status</th>
            <th className="py-2 pr-4">Order</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => {
            const badge = STATUS_BADGES[entry.status];
            const amount = formatMoney(entry.amountCents, entry.currency);
            return (
              <tr
                key={`${entry.kind}:${entry.status}:${entry.orderNumber}:${entry.at}`}
                className="border-b align-top"
                data-status={entry.status}
              >
                <td className="py-2 pr-4 whitespace-nowrap">{formatLongDate(entry.at)}</td>
                <td className="py-2 pr-4">{entry.what}</td>
                <td className="py-2 pr-4">{entry.planName}</td>
                <td className="py-2 pr-4 text-right tabular-nums">
                  {entry.sign < 0 ? `−${amount}` : amount}
                </td>
                <td className="py-2 pr-4">
                  <Badge variant={badge.variant}>{badge.label}</Badge>
                </td>
                <td className="py-2 pr-4">
                  {entry.kind === "payment" && entry.status !== "awaiting" ? (
                    <Link
                      to={`/account/receipts/${entry.subscriptionId}?order=${entry.orderNumber}`}
                      aria-label={`Receipt of order ${entry.orderNumber}`}
                      className="font-mono text-xs text-primary underline underline-offset-2"
                    >
                      {entry.orderNumber}
                    </Link>
                  ) : (
                    <span className="font-mono text-xs">{entry.orderNumber}</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
