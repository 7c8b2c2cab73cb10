// Dates are formatted in UTC so the server-rendered text matches what the browser hydrates.

// Built once: toLocaleDateString builds a formatter on every call (~0.2 ms).
const longDate = new Intl.DateTimeFormat("en-US", {
  year: "numeric",
  month: "long",
  day: "numeric",
  timeZone: "UTC",
});

export function formatLongDate(value: Date | string | null | undefined): string {
  if (!value) return "N/A";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? "Invalid Date" : longDate.format(date);
}

export function formatShortDate(value: Date | string | null | undefined): string {
  if (!value) return "N/A";
  return new Date(value).toLocaleDateString("en-US", {
    year: "numeric",
    month: "short",
    day: "numeric",
    timeZone: "UTC",
  });
}

/** US dollars from cents: 1499 → "$14.99". */
export function formatUsd(cents: number): string {
  return `$${(cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}
