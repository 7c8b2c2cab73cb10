import { formatUsd } from "#core/format.ts";

/** A plan change's price difference in words: charged now, on the next invoice, or credited. */
export function priceDifference(quote: { amountCents: number; chargedNow: boolean }): string {
  if (quote.amountCents === 0) return "No charge";
  const amount = formatUsd(Math.abs(quote.amountCents));
  if (quote.amountCents < 0) return `${amount} credited to your next invoice`;
  return quote.chargedNow ? `${amount} charged now` : `${amount} added to your next invoice`;
}
