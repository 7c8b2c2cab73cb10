import { usesTestCheckout } from "./config.ts";
import type { AppServices } from "./services.ts";

// The short block `npm start` prints once it listens (issue 23): what this store is, and what to
// do next. Nothing secret: the database is named by its kind, mail by its host.

export function startupSummary(
  running: { url: string; services: Pick<AppServices, "config" | "dbKind" | "mail"> },
  envFile: { file: string | null; names: string[] } = { file: null, names: [] },
): string {
  const { config, dbKind, mail } = running.services;
  const demo = config.NAIJALINK_MODE === "demo";
  const rows: Array<[string, string]> = [
    ["Mode", demo ? "demo (payments are simulated)" : "live"],
    ["URL", `${running.url}${config.PUBLIC_URL !== running.url ? ` (public: ${config.PUBLIC_URL})` : ""}`],
    ["Database", dbKind === "pglite" ? `embedded PGlite in ${config.DATA_DIR}` : "PostgreSQL (DATABASE_URL)"],
    ["Mail", mail.transport.description],
    [
      "Checkout",
      usesTestCheckout(config)
        ? "built-in test checkout: card 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined"
        : `Stripe Checkout (${config.STRIPE_SECRET_KEY?.startsWith("sk_live_") ? "live" : "test"} key)`,
    ],
    [
      "Settings",
      envFile.file
        ? `the environment, then ${envFile.file} (${envFile.names.length} taken from it)`
        : "the environment (no .env here)",
    ],
  ];
  const next = demo
    ? [
        `Open ${running.url} and buy a plan with the test card.`,
        `Staff: sign up at ${running.url}/admin/login as ${config.STAFF_ADMINS[0] ?? "an address on STAFF_ADMINS"}; the confirmation link is in ${config.DATA_DIR}/outbox.`,
        "Check the store: npm run doctor. Going live: docs/operating.md.",
      ]
    : ["Check the store: npm run doctor (docs/operating.md, first sale checklist)."];
  const width = Math.max(...rows.map(([name]) => name.length));
  return [
    "",
    `${config.BRAND_NAME} is running.`,
    ...rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`),
    "Next:",
    ...next.map((line) => `  - ${line}`),
    "",
    "",
  ].join("\n");
}
