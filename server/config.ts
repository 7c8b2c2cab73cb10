import net from "node:net";
import path from "node:path";
import { z } from "zod";
import { CLIENT_MTU, dnsCheckZoneSchema } from "#agent/node-api.ts";
import { dnsSchema, ENDPOINT_RULE, isEndpoint } from "#server/domain/vpn/server-fields.ts";

const emailList = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.email()).min(1));

const optionalUrl = z
  .string()
  .optional()
  .transform((value) => (value ? value : undefined))
  .pipe(z.url().optional());

/**
 * Which proxies' X-Forwarded-For to believe: none (unset or "false"), the number of proxy hops in
 * front of the app ("1"), or their addresses / CIDRs ("10.0.0.5, 10.1.0.0/16"). Never "true":
 * trusting every hop lets any caller forge its address and escape per-client limits.
 */
const trustedProxies = z
  .string()
  .optional()
  .transform((value, context): false | number | string[] => {
    const text = value?.trim() ?? "";
    if (text === "" || text === "false" || text === "0") return false;
    if (/^\d{1,2}$/.test(text)) return Number(text);
    const entries = text.split(",").map((entry) => entry.trim());
    const valid = entries.every((entry) => {
      const [address = "", prefix] = entry.split("/");
      const family = net.isIP(address);
      return (
        family !== 0 &&
        (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)))
      );
    });
    if (!valid) {
      context.addIssue({
        code: "custom",
        message:
          text === "true"
            ? "true would trust any X-Forwarded-For; give the number of proxies in front of the app (e.g. 1) or their addresses"
            : "must be a hop count (e.g. 1) or a comma list of proxy addresses or CIDRs",
      });
      return z.NEVER;
    }
    return entries;
  });

const configSchema = z.object({
  /** demo: what a fresh machine gets (simulated payments); live: a real store. */
  NAIJALINK_MODE: z.enum(["demo", "live"]).default("demo"),
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: optionalUrl,
  /** The owner role's connection, for migrations; the app then runs as DATABASE_URL's role. */
  DATABASE_MIGRATION_URL: optionalUrl,
  BRAND_NAME: z.string().min(1).default("NaijaLink"),
  SUPPORT_EMAIL: z.email().default("support@naijalink.example"),
  /** Staff with every right; `STAFF_EMAILS` (the older setting) means the same. */
  STAFF_ADMINS: emailList.optional(),
  STAFF_EMAILS: emailList.optional(),
  /** Staff who may only write the blog. */
  STAFF_EDITORS: emailList.optional(),
  /** Staff must enrol TOTP before using the admin area; unset → on in live mode, off in demo. */
  STAFF_REQUIRE_TOTP: z.enum(["true", "false"]).optional(),
  MAIL_FROM: z.string().min(3).optional(),
  SMTP_URL: optionalUrl,
  BETTER_AUTH_SECRET: z.string().min(32).optional(),
  CONFIG_ENCRYPTION_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}=$/, "must be 32 bytes, base64-encoded")
    .optional(),
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  STRIPE_API_BASE: optionalUrl,
  VPN_ENDPOINT: z.string().refine(isEndpoint, ENDPOINT_RULE).default("vpn.naijalink.example:51820"),
  VPN_DNS: dnsSchema.default("1.1.1.1, 2606:4700:4700::1111"),
  /** The `MTU =` new VPN servers' configs carry; `set-mtu` changes one server's. */
  VPN_CLIENT_MTU: z.coerce
    .number(`must be ${CLIENT_MTU.min}-${CLIENT_MTU.max}`)
    .int(`must be ${CLIENT_MTU.min}-${CLIENT_MTU.max}`)
    .min(CLIENT_MTU.min, `must be ${CLIENT_MTU.min}-${CLIENT_MTU.max}`)
    .max(CLIENT_MTU.max, `must be ${CLIENT_MTU.min}-${CLIENT_MTU.max}`)
    .default(CLIENT_MTU.default),
  /** The zone of /check's per-visit names, which nodes' resolvers answer themselves. */
  VPN_DNS_CHECK_ZONE: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(dnsCheckZoneSchema)
    .default("dns-check.internal"),
  /** The tutorial's YouTube video; unset, the tutorial shows its poster and "Video coming soon". */
  TUTORIAL_VIDEO_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{6,20}$/)
    .optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  TRUST_PROXY: trustedProxies,
  /** Bearer token Prometheus sends to GET /metrics; unset → /metrics serves nothing. */
  METRICS_TOKEN: z
    .string()
    .optional()
    .transform((value) => (value ? value : undefined))
    .pipe(
      z
        .string()
        .regex(/^[\x21-\x7e]{32,}$/, "must be at least 32 characters, no spaces (e.g. openssl rand -hex 32)")
        .optional(),
    ),
  SEED_SAMPLE_CONTENT: z
    .enum(["true", "false"])
    .default("true")
    .transform((value) => value === "true"),
});

type RawConfig = z.infer<typeof configSchema>;

export type Config = Omit<
  RawConfig,
  "PUBLIC_URL" | "STAFF_REQUIRE_TOTP" | "STAFF_ADMINS" | "STAFF_EMAILS" | "STAFF_EDITORS"
> & {
  PUBLIC_URL: string;
  DATA_DIR: string;
  STAFF_REQUIRE_TOTP: boolean;
  /** Resolved staff lists: an address on both is an admin. */
  STAFF_ADMINS: string[];
  STAFF_EDITORS: string[];
};

/** Unset → the demo's two accounts, one of each role. */
function staffRoles(raw: RawConfig): Pick<Config, "STAFF_ADMINS" | "STAFF_EDITORS"> {
  if (!raw.STAFF_ADMINS && !raw.STAFF_EMAILS && !raw.STAFF_EDITORS)
    return { STAFF_ADMINS: [DEMO_STAFF[0]!], STAFF_EDITORS: [DEMO_STAFF[1]!] };
  const admins = [...new Set([...(raw.STAFF_ADMINS ?? []), ...(raw.STAFF_EMAILS ?? [])])];
  const editors = [...new Set(raw.STAFF_EDITORS ?? [])].filter((email) => !admins.includes(email));
  return { STAFF_ADMINS: admins, STAFF_EDITORS: editors };
}

/** What live mode cannot run without: real payments, real e-mail, and the address buyers use. */
const LIVE_REQUIREMENTS: Array<[keyof RawConfig, string]> = [
  ["STRIPE_SECRET_KEY", "live payments go through Stripe Checkout"],
  ["STRIPE_WEBHOOK_SECRET", "Stripe's payment events must be verified"],
  ["SMTP_URL", "configs and sign-in links are sent by e-mail"],
  ["PUBLIC_URL", "links in e-mails and Stripe's return address need the site's https address"],
];

/** The demo's two staff accounts: addresses at a reserved domain, never a live store's staff. */
const DEMO_STAFF = ["admin@naijalink.example", "editor@naijalink.example"];

function liveModeIssues(raw: RawConfig): string[] {
  const issues = LIVE_REQUIREMENTS.filter(([name]) => !raw[name]).map(
    ([name, why]) => `${name}: required when NAIJALINK_MODE=live (${why})`,
  );
  const staff = [...(raw.STAFF_ADMINS ?? []), ...(raw.STAFF_EMAILS ?? []), ...(raw.STAFF_EDITORS ?? [])];
  if (staff.length === 0)
    issues.push(
      "STAFF_ADMINS: required when NAIJALINK_MODE=live (the demo's staff addresses are not used in a live store; name your own)",
    );
  const demo = staff.filter((email) => DEMO_STAFF.includes(email));
  if (demo.length)
    issues.push(
      `STAFF_ADMINS / STAFF_EDITORS: ${demo.join(", ")} is a demo address; name your own staff in a live store`,
    );
  if (raw.PUBLIC_URL && !raw.PUBLIC_URL.startsWith("https://"))
    issues.push("PUBLIC_URL: must be an https address when NAIJALINK_MODE=live");
  return issues;
}

export class ConfigError extends Error {
  constructor(public readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((issue) => `  - ${issue}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/**
 * Parses settings once. Only the variable names and the rule they broke are reported,
 * never their values, because several of them are secrets.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // A blank value (`NAME=` in a settings file or .env) means unset: its default, or a generated key.
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value?.trim()));
  const result = configSchema.safeParse(set);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`),
    );
  }
  const raw = result.data;
  if (raw.DATABASE_MIGRATION_URL && !raw.DATABASE_URL)
    throw new ConfigError([
      "DATABASE_MIGRATION_URL: needs DATABASE_URL (the embedded PGlite has a single user, so it has no separate owner)",
    ]);
  if (raw.NAIJALINK_MODE === "live") {
    const issues = liveModeIssues(raw);
    if (issues.length) throw new ConfigError(issues);
  }
  const { STAFF_EMAILS: _legacyAdmins, ...settings } = raw;
  return {
    ...settings,
    ...staffRoles(raw),
    PUBLIC_URL: (raw.PUBLIC_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ""),
    DATA_DIR: path.resolve(raw.DATA_DIR),
    STAFF_REQUIRE_TOTP:
      (raw.STAFF_REQUIRE_TOTP ?? (raw.NAIJALINK_MODE === "live" ? "true" : "false")) === "true",
  };
}

/** The built-in test checkout sells only in demo mode, and only while Stripe is not configured. */
export function usesTestCheckout(config: Pick<Config, "NAIJALINK_MODE" | "STRIPE_SECRET_KEY">): boolean {
  return config.NAIJALINK_MODE === "demo" && !config.STRIPE_SECRET_KEY;
}

/** The values the browser may see. Nothing secret belongs here. */
export function publicConfig(config: Config) {
  return {
    demo: config.NAIJALINK_MODE === "demo",
    brandName: config.BRAND_NAME,
    supportEmail: config.SUPPORT_EMAIL,
    publicUrl: config.PUBLIC_URL,
    tutorialVideoId: config.TUTORIAL_VIDEO_ID ?? null,
  };
}

export type PublicConfig = ReturnType<typeof publicConfig>;
