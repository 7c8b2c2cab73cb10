import { formatDateTimeUtc, formatMoney } from "#core/format.ts";
import type { ReconciliationStatus } from "#server/domain/billing/reconciliation.ts";

// The dashboard's reconciliation panel (decision 124): the differences the daily comparison of
// the ledger with Stripe left open, or that the books match, as of the last run.

const amount = (cents: number | null, currency: string | null) =>
  cents === null || currency === null ? "—" : formatMoney(cents, currency);

export function BooksPanel({ books }: { books: ReconciliationStatus }) {
  return (
    <section aria-labelledby="books-heading" className="mt-8">
      <h2 id="books-heading" className="text-lg font-semibold">
        Books and Stripe
      </h2>
      {!books.live ? (
        <p className="mt-2 text-sm text-muted-foreground">
          Demo store: payments are simulated, so there is no Stripe account to reconcile the books with. A
          live store compares them every day.
        </p>
      ) : !books.lastRun ? (
        <p className="mt-2 text-sm text-muted-foreground">
          Not reconciled yet: the daily comparison with Stripe has not completed (npm run doctor compares them
          now, without waiting).
        </p>
      ) : books.open.length === 0 ? (
        <p className="mt-2 text-sm">
          ✓ The books match Stripe as of {formatDateTimeUtc(books.lastRun.ranAt)}.
        </p>
      ) : (
        <>
          <p className="mt-2 text-sm text-yellow-800">
            ✗ {books.open.length} difference(s) between the books and Stripe, last reconciled{" "}
            {formatDateTimeUtc(books.lastRun.ranAt)}.
          </p>
          <ul className="mt-3 space-y-3">
            {books.open.map((finding) => (
              <li key={finding.key} className="rounded-lg border border-amber-500 bg-amber-50 p-3 text-sm">
                <p className="font-medium">{finding.detail}</p>
                <dl className="mt-1 grid grid-cols-2 gap-x-4 text-xs">
                  <dt className="text-muted-foreground">Order</dt>
                  <dd>{finding.orderNumber ?? "—"}</dd>
                  <dt className="text-muted-foreground">Stripe</dt>
                  <dd className="break-all">{finding.stripeId ?? "—"}</dd>
                  <dt className="text-muted-foreground">Books</dt>
                  <dd>{amount(finding.ledgerCents, finding.ledgerCurrency)}</dd>
                  <dt className="text-muted-foreground">Stripe amount</dt>
                  <dd>{amount(finding.stripeCents, finding.stripeCurrency)}</dd>
                  <dt className="text-muted-foreground">First seen</dt>
                  <dd>{formatDateTimeUtc(finding.firstSeenAt)}</dd>
                </dl>
                <p className="mt-1 text-xs">What to do: {finding.fix}</p>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
