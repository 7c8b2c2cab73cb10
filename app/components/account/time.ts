// "connected 2 min ago": measured against the loader's clock, so the server render and the
// hydrated page agree.

const UNITS: Array<[limitSeconds: number, divisor: number, unit: string]> = [
  [60, 1, "s"],
  [3_600, 60, "min"],
  [86_400, 3_600, "h"],
  [Infinity, 86_400, "d"],
];

export function timeAgo(then: string, now: string): string {
  const seconds = Math.max(0, Math.round((Date.parse(now) - Date.parse(then)) / 1000));
  if (seconds < 10) return "just now";
  const [, divisor, unit] = UNITS.find(([limit]) => seconds < limit)!;
  return `${Math.floor(seconds / divisor)} ${unit} ago`;
}

export function connectionLabel(lastHandshakeAt: string | null, now: string): string {
  return lastHandshakeAt ? `connected ${timeAgo(lastHandshakeAt, now)}` : "not connected yet";
}
