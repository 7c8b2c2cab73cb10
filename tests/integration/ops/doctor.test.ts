// `npm run doctor` (issue 23, decision 096): one ✓ or ✗ line per check, the fix beside each ✗,
// exit status 1 when something blocks selling, and never a secret.
import { execFile } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "#server/config.ts";
import { devices, user, vpnServers } from "#server/db/schema/index.ts";
import { recordBackup } from "#server/domain/ops/backup/last-backup.ts";
import { formatCheck, verdict } from "#server/domain/ops/doctor/check.ts";
import { runDoctor } from "#server/domain/ops/doctor/run.ts";
import { storeChecks } from "#server/domain/ops/doctor/store.ts";
import { addStreamingService, recordStreamingResults } from "#server/domain/vpn/streaming-checks.ts";
import { WEBHOOK_EVENTS } from "#server/domain/billing/webhook.ts";
import { createTestApp, startTestServer, type TestApp, type TestServer } from "../../support/app.ts";
import { databaseKinds } from "../../support/database.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { startStripeStandIn, type StripeStandIn } from "../../support/stripe-stand-in.ts";
import { generateKeyPair } from "#server/domain/vpn/keys.ts";
import { addServerViaAdmin, adminToken } from "../../support/vpn-admin.ts";
import { addTestSubscription, addTestVpnServer, issueTestDevice } from "../../support/vpn.ts";
import { createAccount, STAFF_EMAIL } from "../../support/staff.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");

/** A port nothing listens on: an SMTP server that is down. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A first start on a loaded 2-core machine can take minutes (PGlite's initdb). */
const SERVER_START_MS = 300_000;

// Serves PUBLIC_URL/healthz as the app does behind Caddy, for every database kind below.
let site: TestServer;
let stripe: StripeStandIn;
beforeAll(async () => {
  site = await startTestServer({ backgroundJobs: false });
  stripe = await startStripeStandIn();
}, SERVER_START_MS);
afterAll(async () => {
  await site?.stop();
  await stripe?.close();
});

describe.each(databaseKinds)("npm run doctor's checks on %s", (kind) => {
  /** The doctor's lines for `app`'s store with `settings` changed; the verdict's exit status. */
  async function doctor(app: TestApp, settings: Partial<Config> = {}, now = new Date()) {
    const config: Config = { ...app.config, PUBLIC_URL: site.url, ...settings };
    const checks = await runDoctor(config, {
      store: () => storeChecks(app.services.db, app.services.dbKind, config, now),
    });
    const lines = checks.map(formatCheck);
    const { exitCode } = verdict(checks);
    // In every state: no ✓ about sales while selling is blocked, and each ✗ says its fix.
    if (exitCode === 1) expect(lines.filter((entry) => entry.startsWith("✓ sales"))).toEqual([]);
    for (const entry of lines.filter((entry) => entry.startsWith("✗ "))) expect(entry).toContain(" — fix: ");
    return { lines, text: lines.join("\n"), exitCode };
  }
  const line = (lines: string[], name: string) =>
    lines.find((entry) => entry.slice(2).startsWith(`${name}:`));

  async function withApp(run: (app: TestApp) => Promise<void>) {
    const app = await createTestApp({ kind });
    try {
      await run(app);
    } finally {
      await app.close();
    }
  }

  it("a healthy demo: every line ✓ and exit status 0", async () => {
    await withApp(async (app) => {
      await createAccount(app, STAFF_EMAIL);
      await recordBackup(app.dataDir, new Date(Date.now() - 3_600_000), "/var/backups/naijalink.backup");
      const { lines, exitCode } = await doctor(app);
      expect(lines[1]).toMatch(
        new RegExp(
          `^✓ database: ${kind === "pglite" ? "embedded PGlite" : "PostgreSQL"} reachable, all \\d+ migrations applied$`,
        ),
      );
      expect([lines[0], ...lines.slice(2)]).toEqual([
        "✓ settings: demo mode, valid; keys from the settings",
        `✓ mail: written as files to ${app.config.DATA_DIR}/outbox (no SMTP_URL: buyers get no e-mail)`,
        "✓ Stripe: not set: the built-in test checkout takes the demo's payments",
        `✓ PUBLIC_URL: ${site.url} serves this app (plain http: fine for a demo; live needs https)`,
        "✓ sales: a VPN server can take a device: checkout is open",
        "✓ node ng-lagos-dev: the demo's development placeholder sells until a real node registers (its configs cannot connect)",
        "✓ streaming: no services listed (npm run vpn -- add-service NAME URL lists one)",
        "✓ staff: 1 admin account(s), 0 with two-factor (TOTP)",
        "✓ backups: the last backup was 60 min ago",
      ]);
      expect(exitCode).toBe(0);
    });
  });

  it("a real node: online with exits and a handshake is ✓; silent is ✗ and blocks selling", async () => {
    await withApp(async (app) => {
      const now = new Date();
      const node = await addTestVpnServer(app.services.db, { name: "ng-lagos-1", octet: 93 });
      await app.services.db
        .update(vpnServers)
        .set({ lastSeenAt: new Date(now.getTime() - 20_000), exitAddresses: ["203.0.113.10"] })
        .where(eq(vpnServers.id, node.id));
      const issued = await issueTestDevice(app.services, await addTestSubscription(app.services.db, {}));
      await app.services.db
        .update(devices)
        .set({ lastHandshakeAt: new Date(now.getTime() - 60_000) })
        .where(eq(devices.id, issued.device.id));
      const healthy = await doctor(app, {}, now);
      expect(line(healthy.lines, "node ng-lagos-1")).toBe(
        "✓ node ng-lagos-1: online, key registered, last seen 20 s ago",
      );
      expect(line(healthy.lines, "node ng-lagos-1 exit addresses")).toBe(
        "✓ node ng-lagos-1 exit addresses: 203.0.113.10 (not in the country database); country database of 2026-06-17",
      );
      expect(line(healthy.lines, "node ng-lagos-1 UDP port")).toBe(
        "✓ node ng-lagos-1 UDP port: reachable: a device's handshake reached it 60 s ago",
      );
      expect(line(healthy.lines, "node ng-lagos-dev")).toBe(
        "✓ node ng-lagos-dev: retired development placeholder, empty",
      );

      const later = new Date(now.getTime() + 10 * 60_000);
      const silent = await doctor(app, {}, later);
      expect(line(silent.lines, "node ng-lagos-1")).toBe(
        "✗ node ng-lagos-1: silent: last seen 10 min ago; buyers on it may not connect — fix: on the node: systemctl status naijalink-agent; journalctl -u naijalink-agent",
      );
      expect(silent.exitCode).toBe(1);
      expect(line(silent.lines, "sales")).toBe(
        "✗ sales: a VPN server can take a device, but a sale cannot complete or work until node ng-lagos-1 is fixed — fix: the fix on the node ng-lagos-1 line",
      );

      // An exit address the country database places outside Nigeria is a ✗ with what to do.
      await app.services.db
        .update(vpnServers)
        .set({ exitAddresses: ["197.210.64.1", "8.8.8.8"] })
        .where(eq(vpnServers.id, node.id));
      const abroad = await doctor(app, {}, now);
      expect(line(abroad.lines, "node ng-lagos-1 exit addresses")).toMatch(
        /^✗ node ng-lagos-1 exit addresses: 197\.210\.64\.1 \(appears in NG\), 8\.8\.8\.8 \(appears in US, not NG\); country database of 2026-06-17: .* — fix: .*set-exit ng-lagos-1 IP/,
      );
      expect(abroad.exitCode).toBe(0);
    });
  });

  it("streaming: ✗ until every required service passed through a server that takes devices; no ✓ leans on a silent node (decision 133)", async () => {
    await withApp(async (app) => {
      const now = new Date();
      const db = app.services.db;
      const seen = async (name: string, at: Date) =>
        db.update(vpnServers).set({ lastSeenAt: at }).where(eq(vpnServers.name, name));
      const one = await addTestVpnServer(db, { name: "ng-lagos-1", octet: 93 });
      const two = await addTestVpnServer(db, { name: "ng-lagos-2", octet: 94 });
      await seen("ng-lagos-1", now);
      await seen("ng-lagos-2", now);
      const optional = await db.transaction((tx) =>
        addStreamingService(tx, {
          name: "Geo TV",
          url: "https://tv.example.com/",
          expectStatus: 200,
          required: false,
        }),
      );
      expect(line((await doctor(app, {}, now)).lines, "streaming")).toBe(
        "✓ streaming: no required services listed (1 shown only: npm run vpn -- list-servers)",
      );
      const dstv = await db.transaction((tx) =>
        addStreamingService(tx, {
          name: "DStv",
          url: "https://dstv.example.com/",
          expectStatus: 200,
          required: true,
        }),
      );
      const report = (serverId: string, ok: boolean) =>
        recordStreamingResults(
          db,
          serverId,
          [
            {
              id: dstv.id,
              ok,
              status: ok ? 200 : 403,
              ...(ok ? {} : { reason: "status 403" }),
              checkedAt: Date.UTC(2026, 10, 29, 4, 5) / 1000,
            },
            {
              id: optional.id,
              ok: false,
              status: 451,
              reason: "status 451",
              checkedAt: Date.UTC(2026, 10, 29, 4, 5) / 1000,
            },
          ],
          now,
        );
      const unchecked = await doctor(app, {}, now);
      expect(line(unchecked.lines, "streaming")).toMatch(
        /^✗ streaming: a required service passes through no server that takes new devices: ng-lagos-1\/DStv: not checked yet, ng-lagos-2\/DStv: not checked yet; .* — fix: check the exit's address with the service .*move-devices .*remove-service NAME/,
      );
      expect(unchecked.exitCode).toBe(0);

      await report(one.id, false);
      const refused = await doctor(app, {}, now);
      expect(line(refused.lines, "streaming")).toMatch(
        /^✗ streaming: .*ng-lagos-1\/DStv: ✗ status 403 \(2026-11-29 04:05 UTC\), ng-lagos-2\/DStv: not checked yet; /,
      );
      // The optional service failing everywhere is no ✗; one server passing DStv is enough.
      await report(two.id, true);
      expect(line((await doctor(app, {}, now)).lines, "streaming")).toBe(
        "✓ streaming: every required service passed its last check through a server that takes new devices: DStv through ng-lagos-2",
      );

      // ng-lagos-2 silent: its node line blocks selling, so the streaming line cannot be ✓ on its strength.
      await seen("ng-lagos-1", new Date(now.getTime() + 10 * 60_000));
      const silent = await doctor(app, {}, new Date(now.getTime() + 10 * 60_000));
      expect(line(silent.lines, "node ng-lagos-2")).toMatch(/^✗ node ng-lagos-2: silent/);
      expect(silent.exitCode).toBe(1);
      expect(line(silent.lines, "streaming")).toMatch(/^✗ streaming: .*ng-lagos-1\/DStv: ✗ status 403/);
      expect(line(silent.lines, "streaming")).not.toContain("ng-lagos-2");
    });
  });

  it("the guide's states: a node added but not set up, then live mode with the placeholder full and then empty", async () => {
    await withApp(async (app) => {
      await createAccount(app, STAFF_EMAIL);
      const owner = await addTestSubscription(app.services.db, { customerEmail: "rehearsal@example.com" });
      const rehearsal = await issueTestDevice(app.services, owner);
      expect(rehearsal.server.name).toBe("ng-lagos-dev");
      // Section 5: add-server before the node's setup. The placeholder still sells, yet the doctor blocks.
      await app.services.db.insert(vpnServers).values({
        name: "ng-lagos-1",
        endpoint: "203.0.113.10:51820",
        ipv4Cidr: "10.95.0.0/16",
        ipv6Cidr: "fd95::/64",
        dns: "1.1.1.1",
        nodeTokenHash: "unused-hash-ng-lagos-1",
      });
      const added = await doctor(app);
      expect(added.exitCode).toBe(1);
      expect(line(added.lines, "sales")).toMatch(/^✗ sales: .* until node ng-lagos-1 is fixed/);

      // The node's setup registers it: the placeholder retires, still holding the rehearsal device.
      await app.services.db
        .update(vpnServers)
        .set({
          publicKey: generateKeyPair().publicKey,
          lastSeenAt: new Date(),
          exitAddresses: ["197.210.64.1"],
        })
        .where(eq(vpnServers.name, "ng-lagos-1"));
      // Section 6, live: the retired placeholder with the rehearsal device, then empty.
      const live = { NAIJALINK_MODE: "live" as const, STAFF_REQUIRE_TOTP: false };
      const full = await doctor(app, live);
      expect(line(full.lines, "node ng-lagos-dev")).toBe(
        "✗ node ng-lagos-dev: retired development placeholder with 1 device(s) that can never connect — fix: npm run vpn -- move-devices ng-lagos-dev --to SERVER (or revoke-devices ng-lagos-dev), then remove-server ng-lagos-dev",
      );
      await app.services.db
        .update(devices)
        .set({ revokedAt: new Date() })
        .where(eq(devices.id, rehearsal.device.id));
      const empty = await doctor(app, live);
      expect(line(empty.lines, "node ng-lagos-dev")).toBe(
        "✗ node ng-lagos-dev: retired development placeholder, empty: it takes no devices, and every start logs it — fix: npm run vpn -- remove-server ng-lagos-dev",
      );
    });
  });

  it("a node that never registered, or has no exit addresses, gets its fix", async () => {
    await withApp(async (app) => {
      await app.services.db.insert(vpnServers).values({
        name: "ng-lagos-2",
        endpoint: "203.0.113.12:51820",
        ipv4Cidr: "10.94.0.0/16",
        ipv6Cidr: "fd94::/64",
        dns: "1.1.1.1",
        nodeTokenHash: "unused-hash-ng-lagos-2",
      });
      const { lines } = await doctor(app);
      expect(line(lines, "node ng-lagos-2")).toBe(
        "✗ node ng-lagos-2: awaiting its node: never seen — fix: on the node, run the agent's setup with its node token (docs/operating.md §5)",
      );
    });
  });

  it("a broken SMTP URL is ✗ with the reason and never shows its password", async () => {
    await withApp(async (app) => {
      const port = await closedPort();
      const { lines, text } = await doctor(app, { SMTP_URL: `smtp://shop:S3cret-Pa55@127.0.0.1:${port}` });
      expect(line(lines, "mail")).toMatch(
        new RegExp(
          `^✗ mail: SMTP 127\\.0\\.0\\.1:${port} refused us: .*ECONNREFUSED.* — fix: check SMTP_URL: host, port \\(465 smtps://, 587 smtp://\\), user and the URL-encoded password$`,
        ),
      );
      expect(text).not.toContain("S3cret-Pa55");
    });
  });

  it("Stripe: a missing webhook endpoint, a missing event and a refused key are ✗ and block selling; the endpoint with every event is ✓", async () => {
    await withApp(async (app) => {
      const settings = { STRIPE_SECRET_KEY: "sk_test_doctor", STRIPE_API_BASE: stripe.base };
      const webhook = `${site.url}/api/webhooks/stripe`;
      const missing = await doctor(app, settings);
      expect(line(missing.lines, "Stripe")).toBe(
        `✗ Stripe: test key valid, but no enabled webhook endpoint for ${webhook} — fix: Stripe dashboard → Developers → Webhooks → Add endpoint ${webhook} with ${WEBHOOK_EVENTS.join(", ")}; its signing secret goes in STRIPE_WEBHOOK_SECRET`,
      );
      expect(missing.exitCode).toBe(1);

      stripe.webhookEndpoints.push({
        id: "we_1",
        url: webhook,
        status: "enabled",
        enabled_events: WEBHOOK_EVENTS.filter((event) => event !== "charge.refunded"),
      });
      expect(line((await doctor(app, settings)).lines, "Stripe")).toBe(
        `✗ Stripe: the webhook endpoint ${webhook} lacks charge.refunded — fix: add those events to the endpoint in the Stripe dashboard`,
      );
      stripe.webhookEndpoints[0]!.enabled_events.push("charge.refunded");
      expect(line((await doctor(app, settings)).lines, "Stripe")).toBe(
        `✓ Stripe: test key valid; webhook endpoint ${webhook} sends every event the app needs`,
      );

      const refused = await doctor(app, { ...settings, STRIPE_SECRET_KEY: "sk_test_doctor_revoked" });
      expect(line(refused.lines, "Stripe")).toMatch(
        /^✗ Stripe: the key was refused: Invalid API Key provided/,
      );
      expect(refused.text).not.toContain("sk_test_doctor_revoked");
      stripe.webhookEndpoints.length = 0;
    });
  });

  it("POST /api/ops/doctor answers only the holder of DATA_DIR's admin token; a bad body is a 400", async () => {
    await withApp(async (app) => {
      const staff = await createAccount(app, STAFF_EMAIL);
      await buy(app, "unlock", "buyer@example.com");
      const customer = await signedInCustomer(app, "buyer@example.com");
      const { nodeToken } = await addServerViaAdmin(app, "ng-doctor");
      const call = (headers: Record<string, string>, json: unknown = {}) =>
        app.request("/api/ops/doctor", { json, headers });
      const refused: Array<Record<string, string>> = [
        {},
        { cookie: staff.cookie },
        { cookie: customer },
        { authorization: `Bearer ${nodeToken}` },
      ];
      for (const headers of refused) {
        const response = await call(headers);
        expect(response.status).toBe(401);
        expect(await response.json()).toMatchObject({ error: "Unauthorized", message: expect.any(String) });
      }
      const authorization = `Bearer ${await adminToken(app)}`;
      expect((await call({ authorization }, { drop: "tables" })).status).toBe(400);
      const answered = await call({ authorization });
      expect(answered.status).toBe(200);
      const { checks } = (await answered.json()) as { checks: Array<{ name: string }> };
      expect(checks.map((check) => check.name)).toEqual(
        expect.arrayContaining(["database", "sales", "node ng-doctor", "staff", "backups"]),
      );
      expect((await app.request("/api/ops/doctor", { headers: { authorization } })).status).toBe(405);
    });
  });

  it("live settings with no admin enrolled in two-factor: ✗ staff, with the way to enrol", async () => {
    await withApp(async (app) => {
      await createAccount(app, STAFF_EMAIL);
      const live = { NAIJALINK_MODE: "live" as const, STAFF_REQUIRE_TOTP: true };
      const { lines } = await doctor(app, live);
      expect(line(lines, "staff")).toBe(
        "✗ staff: 1 admin account(s), none with two-factor (TOTP): live mode keeps them out of the console — fix: enrol TOTP at /admin while STAFF_REQUIRE_TOTP=false (or still in demo mode), then turn it back on",
      );
      await app.services.db.update(user).set({ twoFactorEnabled: true }).where(eq(user.email, STAFF_EMAIL));
      expect(line((await doctor(app, live)).lines, "staff")).toBe(
        "✓ staff: 1 admin account(s), 1 with two-factor (TOTP)",
      );
    });
  });
});

describe("npm run doctor against a running server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backgroundJobs: false });
  }, SERVER_START_MS);
  afterAll(async () => {
    await server?.stop();
  });

  it("reads the database through the server that holds DATA_DIR, prints one line per check and exits 1 while sales are stopped", async () => {
    await server.services.db.update(vpnServers).set({ status: "draining" });
    const result = await promisify(execFile)(
      path.join(ROOT, "node_modules/.bin/tsx"),
      // No --url and no PORT: the doctor asks where the app recorded it listens (vpn-admin.json).
      ["scripts/doctor.ts"],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          DATA_DIR: server.dataDir,
          PUBLIC_URL: server.url,
          CONFIG_ENCRYPTION_KEY: server.config.CONFIG_ENCRYPTION_KEY!,
          BETTER_AUTH_SECRET: server.config.BETTER_AUTH_SECRET!,
        },
        timeout: 120_000,
      },
    ).then(
      () => ({ code: 0, stdout: "" }),
      (error: { code: number; stdout: string }) => error,
    );
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toBe("✓ settings: demo mode, valid; keys from the settings");
    expect(lines[1]).toMatch(/^✓ database: embedded PGlite reachable, all \d+ migrations applied$/);
    expect(lines).toContain(
      "✗ sales: no VPN server can take a device: checkout answers 503 to every buyer — fix: see the node lines below (npm run vpn -- list-servers; /admin/servers)",
    );
    expect(lines.at(-1)).toMatch(/^Selling is blocked: 1 of \d+ problem\(s\) above stop sales\.$/);
    expect(lines.every((entry, index) => index === lines.length - 1 || /^[✓✗] /.test(entry))).toBe(true);
    expect(result.stdout).not.toContain(server.config.CONFIG_ENCRYPTION_KEY!);
  });
});
