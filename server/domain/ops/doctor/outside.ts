import { randomUUID } from "node:crypto";
import dns from "node:dns/promises";
import net from "node:net";
import nodemailer from "nodemailer";
import { usesTestCheckout, type Config } from "#server/config.ts";
import { stripeClient } from "#server/domain/billing/stripe-provider.ts";
import { WEBHOOK_EVENTS } from "#server/domain/billing/webhook.ts";
import { createMailTransport } from "#server/domain/mail/transport.ts";
import { fail, pass, type DoctorCheck } from "./check.ts";

// The doctor's checks of what lies outside the database: the settings, the mail
// transport, Stripe and the public address. They run in the doctor's own process.

/** An error's message without anything of `secrets` (an SMTP server may echo the user name). */
function reason(error: unknown, secrets: Array<string | undefined>): string {
  let text = error instanceof Error ? error.message : String(error);
  for (const secret of secrets) if (secret) text = text.split(secret).join("…");
  return text.split("\n")[0]!.slice(0, 200);
}

export function settingsCheck(config: Config): DoctorCheck {
  const keys =
    config.CONFIG_ENCRYPTION_KEY && config.BETTER_AUTH_SECRET
      ? "keys from the settings"
      : "keys generated into DATA_DIR/secrets.json (set both explicitly before running a second app process)";
  return pass("settings", `${config.NAIJALINK_MODE} mode, valid; ${keys}`);
}

export async function mailCheck(config: Config, to?: string): Promise<DoctorCheck> {
  const name = "mail";
  let description: string;
  if (config.SMTP_URL) {
    const url = new URL(config.SMTP_URL);
    const secrets = [
      url.password,
      decodeURIComponent(url.password),
      url.username,
      decodeURIComponent(url.username),
    ];
    description = `SMTP ${url.hostname}:${url.port || "(default port)"}`;
    const transporter = nodemailer.createTransport({
      url: config.SMTP_URL,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 15_000,
    } as unknown as Parameters<typeof nodemailer.createTransport>[0]);
    try {
      await transporter.verify();
    } catch (error) {
      return fail(
        name,
        `${description} refused us: ${reason(error, secrets)}`,
        "check SMTP_URL: host, port (465 smtps://, 587 smtp://), user and the URL-encoded password",
        config.NAIJALINK_MODE === "live",
      );
    } finally {
      transporter.close();
    }
  } else {
    description = `written as files to ${config.DATA_DIR}/outbox (no SMTP_URL: buyers get no e-mail)`;
  }
  if (!to) return pass(name, config.SMTP_URL ? `${description} accepts our login` : description);
  const transport = createMailTransport(config);
  try {
    await transport.send(
      {
        id: randomUUID(),
        kind: "doctor-test",
        to,
        subject: `${config.BRAND_NAME}: test message from npm run doctor`,
        text: `This message was sent by npm run doctor on ${new Date().toUTCString()}: e-mail from ${config.BRAND_NAME} reaches this mailbox.`,
      },
      config.MAIL_FROM ?? `${config.BRAND_NAME} <${config.SUPPORT_EMAIL}>`,
    );
    return pass(name, `${description}; test message sent to ${to}`);
  } catch (error) {
    return fail(
      name,
      `${description}: the test message to ${to} failed: ${reason(error, [])}`,
      "check SMTP_URL and MAIL_FROM",
    );
  } finally {
    transport.close();
  }
}

export async function stripeCheck(config: Config): Promise<DoctorCheck> {
  const name = "Stripe";
  if (!config.STRIPE_SECRET_KEY)
    return usesTestCheckout(config)
      ? pass(name, "not set: the built-in test checkout takes the demo's payments")
      : fail(
          name,
          "STRIPE_SECRET_KEY is not set",
          "set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (docs/operating.md §4)",
          true,
        );
  const live =
    config.STRIPE_SECRET_KEY.startsWith("sk_live_") || config.STRIPE_SECRET_KEY.startsWith("rk_live_");
  if (config.NAIJALINK_MODE === "live" && !live)
    return fail(
      name,
      "a test key in live mode: buyers' cards are never charged",
      "put the live secret key (sk_live_…) in STRIPE_SECRET_KEY",
      true,
    );
  const webhook = `${config.PUBLIC_URL}/api/webhooks/stripe`;
  let endpoints;
  try {
    endpoints = await (await stripeClient(config)).webhookEndpoints.list({ limit: 100 });
  } catch (error) {
    return fail(
      name,
      `the key was refused: ${reason(error, [config.STRIPE_SECRET_KEY])}`,
      "copy the secret key again from the Stripe dashboard (Developers → API keys)",
      true,
    );
  }
  const endpoint = endpoints.data.find(
    (candidate) => candidate.url === webhook && candidate.status === "enabled",
  );
  if (!endpoint)
    return fail(
      name,
      `${live ? "live" : "test"} key valid, but no enabled webhook endpoint for ${webhook}`,
      `Stripe dashboard → Developers → Webhooks → Add endpoint ${webhook} with ${WEBHOOK_EVENTS.join(", ")}; its signing secret goes in STRIPE_WEBHOOK_SECRET`,
      true,
    );
  const missing = endpoint.enabled_events.includes("*")
    ? []
    : WEBHOOK_EVENTS.filter((event) => !endpoint.enabled_events.includes(event));
  return missing.length
    ? fail(
        name,
        `the webhook endpoint ${webhook} lacks ${missing.join(", ")}`,
        "add those events to the endpoint in the Stripe dashboard",
        true,
      )
    : pass(
        name,
        `${live ? "live" : "test"} key valid; webhook endpoint ${webhook} sends every event the app needs`,
      );
}

export async function publicUrlCheck(config: Config): Promise<DoctorCheck> {
  const name = "PUBLIC_URL";
  const url = new URL(config.PUBLIC_URL);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (net.isIP(host) === 0) {
    try {
      await dns.lookup(host);
    } catch {
      return fail(
        name,
        `${url.host} does not resolve`,
        `point an A/AAAA record for ${url.hostname} at the app server`,
        true,
      );
    }
  }
  let body: { service?: string } | undefined;
  try {
    const response = await fetch(new URL("/healthz", config.PUBLIC_URL), {
      signal: AbortSignal.timeout(10_000),
      redirect: "manual",
    });
    body = response.ok ? ((await response.json().catch(() => undefined)) as typeof body) : undefined;
    if (!response.ok)
      return fail(
        name,
        `${config.PUBLIC_URL}/healthz answered ${response.status}`,
        "check Caddy (journalctl -u caddy) and the app (systemctl status naijalink)",
        true,
      );
  } catch (error) {
    return fail(
      name,
      `${config.PUBLIC_URL} did not answer: ${reason(error, [])}`,
      "check Caddy, the firewall (TCP 80 and 443) and the app",
      true,
    );
  }
  if (body?.service !== "naijalink")
    return fail(
      name,
      `${config.PUBLIC_URL} answers, but not with this app`,
      "point the host name and Caddy at this app",
      true,
    );
  return url.protocol === "https:"
    ? pass(name, `${config.PUBLIC_URL} resolves and serves this app over https`)
    : config.NAIJALINK_MODE === "live"
      ? fail(
          name,
          `${config.PUBLIC_URL} is not https`,
          "an https address behind Caddy (docs/operating.md §1)",
          true,
        )
      : pass(name, `${config.PUBLIC_URL} serves this app (plain http: fine for a demo; live needs https)`);
}
