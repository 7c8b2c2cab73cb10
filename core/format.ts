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

const DATA_UNITS = ["kilobyte", "megabyte", "gigabyte", "terabyte"] as const;
const dataFormats = DATA_UNITS.map(
  (unit) =>
    new Intl.NumberFormat("en-US", { style: "unit", unit, unitDisplay: "short", maximumFractionDigits: 1 }),
);

/** An amount of data in decimal units, from kB up: "1.2 GB", "850 kB", "0 kB". */
export function formatDataAmount(bytes: number): string {
  let index = 0;
  let value = bytes / 1000;
  // Rounded as shown, so 999,960 bytes reads "1 MB", not "1,000 kB".
  while (index < DATA_UNITS.length - 1 && Math.round(value * 10) / 10 >= 1000) {
    value /= 1000;
    index += 1;
  }
  return dataFormats[index]!.format(value);
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * The one money formatter, browser and server: an amount in any currency from its minor units,
 * (1499, "usd") → "$14.99"; a code Intl does not know reads "14.99 XYZ".
 */
export function formatMoney(cents: number, currency: string): string {
  const code = currency.toUpperCase();
  let format = moneyFormats.get(code);
  if (!format) {
    try {
      format = new Intl.NumberFormat("en-US", { style: "currency", currency: code });
    } catch {
      return `${(cents / 100).toFixed(2)} ${code}`;
    }
    moneyFormats.set(code, format);
  }
  return format.format(cents / 100);
}

/** US dollars from cents: 1499 → "$14.99". */
export const formatUsd = (cents: number): string => formatMoney(cents, "usd");

const dateTime = new Intl.DateTimeFormat("en-US", {
  dateStyle: "medium",
  timeStyle: "short",
  timeZone: "UTC",
});

/** A moment to the minute, in UTC: "Nov 24, 2026, 1:05 AM UTC"; `missing` ("Never") when there is none. */
export function formatDateTimeUtc(value: Date | string | null | undefined, missing = "Never"): string {
  if (!value) return missing;
  return `${dateTime.format(new Date(value))} UTC`;
}
