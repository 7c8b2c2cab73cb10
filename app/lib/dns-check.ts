// The markup contract between /check's DNS test (app/components/check/dns-check.tsx) and the
// enhancement script that runs it (app/enhance/dns-check.ts): plain values, no React.

/** The attributes the script looks for. */
export const DNS_CHECK = {
  root: "data-dns-check",
  outcome: "data-dns-outcome",
  server: "data-dns-server",
  advice: "data-dns-advice",
} as const;

export type DnsOutcome = "script" | "running" | "yes" | "no" | "failed";
