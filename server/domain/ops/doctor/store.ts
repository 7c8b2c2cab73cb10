import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { formatLongDate } from "#core/format.ts";
import { usesTestCheckout, type Config } from "#server/config.ts";
import { openDatabase, queryRows, type Database, type DatabaseKind } from "#server/db/client.ts";
import { listMigrations } from "#server/db/migrate.ts";
import { runningDemoPurchases } from "#server/domain/billing/demo-purchases.ts";
import { compareWithStripe } from "#server/domain/billing/reconciliation.ts";
import { orderNumberOf } from "#server/domain/billing/self-service.ts";
import { readLastBackup } from "#server/domain/ops/backup/last-backup.ts";
import { listServerHealth, type ServerHealth } from "#server/domain/ops/server-health.ts";
import { abroad, countryDatabase, describeExit, HOME_COUNTRY } from "#server/domain/vpn/exit-country.ts";
import { minuteUtc } from "#server/domain/vpn/node-settings-state.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import { ago, fail, pass, type DoctorCheck } from "./check.ts";

// The doctor's checks that read the store's database. They run inside the app
// code: in the running server (POST /api/ops/doctor, as `npm run vpn` does) or, when no server
// holds DATA_DIR, in the doctor's own process on a database it opened without migrating.

export type StoreConfig = Pick<
  Config,
  | "NAIJALINK_MODE"
  | "DATA_DIR"
  | "STAFF_ADMINS"
  | "STAFF_REQUIRE_TOTP"
  | "PUBLIC_URL"
  | "STRIPE_SECRET_KEY"
  | "STRIPE_API_BASE"
>;

/** A backup older than this is a problem (the guide runs one nightly). */
const BACKUP_MAX_AGE_MS = 48 * 3_600_000;

/**
 * The database's checks; with `reconcile` (what `npm run doctor` asks for), a live store's books
 * are also compared with Stripe, one line per difference.
 */
export async function storeChecks(
  db: Database,
  kind: DatabaseKind,
  config: StoreConfig,
  now = new Date(),
  options: { reconcile?: boolean } = {},
): Promise<DoctorCheck[]> {
  const checks = [await migrationsCheck(db, kind), await salesCheck(db)];
  const countriesOf = `country database of ${(await countryDatabase()).builtAt.toISOString().slice(0, 10)}`;
  const servers = await listServerHealth(db, now);
  for (const server of servers) checks.push(...nodeChecks(server, config, now, countriesOf));
  checks.push(streamingCheck(servers));
  checks.push(await staffCheck(db, config), await backupCheck(config, now));
  const demo = await demoPurchasesCheck(db, config, now);
  if (demo) checks.push(demo);
  if (options.reconcile && config.NAIJALINK_MODE === "live")
    checks.push(...(await booksChecks(db, config, now)));
  return checks;
}

/**
 * The ledger against Stripe (decision 124): ✓ when the last 35 days match, else one ✗ per
 * difference with its fix. None blocks selling. The daily job stores and alerts the same
 * differences; this only looks.
 */
export async function booksChecks(db: Database, config: StoreConfig, now: Date): Promise<DoctorCheck[]> {
  const name = "books";
  let comparison;
  try {
    comparison = await compareWithStripe(db, config, now);
  } catch (error) {
    let text = error instanceof Error ? error.message : String(error);
    if (config.STRIPE_SECRET_KEY) text = text.split(config.STRIPE_SECRET_KEY).join("…");
    return [
      fail(
        name,
        `could not compare the ledger with Stripe: ${text.split("\n")[0]!.slice(0, 200)}`,
        "see the Stripe line above; the daily reconciliation tries again tomorrow",
      ),
    ];
  }
  if (comparison.differences.length === 0)
    return [
      pass(
        name,
        `the ledger matches Stripe's charges, refunds and disputes since ${comparison.since.toISOString().slice(0, 10)} (${comparison.stripeObjects} in Stripe, ${comparison.ledgerRows} ledger rows)`,
      ),
    ];
  return comparison.differences.map((difference) => fail(name, difference.detail, difference.fix));
}

async function migrationsCheck(db: Database, kind: DatabaseKind): Promise<DoctorCheck> {
  const name = "database";
  const where = kind === "pglite" ? "embedded PGlite" : "PostgreSQL";
  const applied = await queryRows<{ name: string }>(db, sql`select name from app_migrations`).catch(
    () => undefined,
  );
  if (!applied)
    return fail(name, `${where} has no migrations applied`, "start the app once: it migrates at start", true);
  const done = new Set(applied.map((row) => row.name));
  const pending = listMigrations().filter((migration) => !done.has(migration.name));
  return pending.length
    ? fail(
        name,
        `${where}: ${pending.length} migration(s) not applied (${pending[0]!.name}…)`,
        "restart the app (systemctl restart naijalink): migrations run at start",
        true,
      )
    : pass(name, `${where} reachable, all ${done.size} migrations applied`);
}

async function salesCheck(db: Database): Promise<DoctorCheck> {
  return (await anyServerCanTakeDevice(db))
    ? pass("sales", "a VPN server can take a device: checkout is open")
    : fail(
        "sales",
        "no VPN server can take a device: checkout answers 503 to every buyer",
        "see the node lines below (npm run vpn -- list-servers; /admin/servers)",
        true,
      );
}

const SETUP_FIX = "on the node, run the agent's setup with its node token (docs/operating.md §5)";

function nodeChecks(
  server: ServerHealth,
  config: StoreConfig,
  now: Date,
  countriesOf: string,
): DoctorCheck[] {
  const name = `node ${server.name}`;
  if (server.development) {
    if (server.state === "placeholder")
      return [
        pass(
          name,
          "the demo's development placeholder sells until a real node registers (its configs cannot connect)",
        ),
      ];
    if (server.liveDevices > 0)
      return [
        fail(
          name,
          `retired development placeholder with ${server.liveDevices} device(s) that can never connect`,
          `npm run vpn -- move-devices ${server.name} --to SERVER (or revoke-devices ${server.name}), then remove-server ${server.name}`,
        ),
      ];
    // Empty: nothing to move, only the row to remove (a demo store keeps it, the live one has no use for it).
    return [
      config.NAIJALINK_MODE === "demo"
        ? pass(name, "retired development placeholder, empty")
        : fail(
            name,
            "retired development placeholder, empty: it takes no devices, and every start logs it",
            `npm run vpn -- remove-server ${server.name}`,
          ),
    ];
  }
  if (server.state === "disabled" || server.state === "draining")
    return [pass(name, `${server.state}: takes no new devices (${server.liveDevices} live)`)];
  const checks: DoctorCheck[] = [];
  const seen = server.lastSeenAt ? `last seen ${ago(new Date(server.lastSeenAt), now)}` : "never seen";
  if (!server.keyRegistered || server.lastSeenAt === null)
    checks.push(fail(name, `awaiting its node: ${seen}`, SETUP_FIX, !server.keyRegistered));
  else if (server.state === "silent")
    checks.push(
      fail(
        name,
        `silent: ${seen}; buyers on it may not connect`,
        "on the node: systemctl status naijalink-agent; journalctl -u naijalink-agent",
        true,
      ),
    );
  else if (server.state === "full")
    checks.push(
      fail(name, `full: ${server.liveDevices} of ${server.capacity} addresses used`, "add a server"),
    );
  else checks.push(pass(name, `online, key registered, ${seen}`));
  if (!server.keyRegistered) return checks;
  checks.push(
    server.exitAddresses.length
      ? exitCountryCheck(server, countriesOf)
      : fail(
          `${name} exit addresses`,
          "none: /check cannot tell buyers they come through Nigeria",
          `re-run the node's setup (it offers the address this site sees) or npm run vpn -- set-exit ${server.name} IP`,
        ),
    server.lastHandshakeAt
      ? pass(
          `${name} UDP port`,
          `reachable: a device's handshake reached it ${ago(new Date(server.lastHandshakeAt), now)}`,
        )
      : fail(
          `${name} UDP port`,
          "not known yet: no device has completed a handshake with it",
          `allow UDP ${server.endpoint.slice(server.endpoint.lastIndexOf(":") + 1)} in the node's firewall and its provider's, then connect one device`,
        ),
  );
  return checks;
}

/**
 * The streaming checks (decision 133): ✓ when every required service passed its last check through
 * at least one server that takes new devices and whose node is not silent (a silent node's line
 * blocks selling, so no ✓ leans on it), else ✗ naming each such server's result for each service
 * that fails there. Not blocking: placement still sells on a server that fails.
 */
export function streamingCheck(servers: readonly ServerHealth[]): DoctorCheck {
  const name = "streaming";
  const listed = servers[0]?.streaming ?? [];
  if (listed.length === 0)
    return pass(name, "no services listed (npm run vpn -- add-service NAME URL lists one)");
  const required = listed.filter((service) => service.required).map((service) => service.serviceId);
  if (required.length === 0)
    return pass(
      name,
      `no required services listed (${listed.length} shown only: npm run vpn -- list-servers)`,
    );
  const usable = servers.filter(
    (server) => server.takesDevices && !server.development && server.state !== "silent",
  );
  const passing = new Map<string, string[]>();
  const failing: string[] = [];
  for (const serviceId of required) {
    const results = usable.map((server) => ({
      server: server.name,
      result: server.streaming.find((entry) => entry.serviceId === serviceId)!,
    }));
    const serviceName = listed.find((service) => service.serviceId === serviceId)!.name;
    const through = results.filter(({ result }) => result.ok === true).map(({ server }) => server);
    if (through.length) {
      passing.set(serviceName, through);
      continue;
    }
    failing.push(
      results.length === 0
        ? `${serviceName}: no server that takes new devices reports (see the node lines)`
        : results
            .map(({ server, result }) =>
              result.ok === null
                ? `${server}/${serviceName}: not checked yet`
                : `${server}/${serviceName}: ✗ ${result.reason} (${minuteUtc(result.checkedAt!)})`,
            )
            .join(", "),
    );
  }
  if (failing.length === 0)
    return pass(
      name,
      `every required service passed its last check through a server that takes new devices: ${[...passing]
        .map(([service, through]) => `${service} through ${through.join(", ")}`)
        .join("; ")}`,
    );
  return fail(
    name,
    `a required service passes through no server that takes new devices: ${failing.join("; ")}; buyers who come for it may find it refused`,
    "check the exit's address with the service (or ask the node's provider for an address it accepts), move devices to a server that passes (npm run vpn -- move-devices SERVER --to OTHER), or stop checking it (npm run vpn -- remove-service NAME); a node checks every 15 minutes",
  );
}

/** The exit addresses, each with where the shipped country database places it (decision 130). */
function exitCountryCheck(server: ServerHealth, countriesOf: string): DoctorCheck {
  const name = `node ${server.name} exit addresses`;
  const listed = server.exitCountries.map(describeExit).join(", ");
  if (abroad(server.exitCountries).length === 0) return pass(name, `${listed}; ${countriesOf}`);
  return fail(
    name,
    `${listed}; ${countriesOf}: buyers are promised an address in ${HOME_COUNTRY}, and sites that look the address up may place them elsewhere`,
    `if the address is wrong, re-run the node's setup with --exit-addresses or npm run vpn -- set-exit ${server.name} IP; if it is right, ask the node's provider to correct its geolocation, or move to a provider in Nigeria`,
  );
}

async function staffCheck(db: Database, config: StoreConfig): Promise<DoctorCheck> {
  const name = "staff";
  const admins = config.STAFF_ADMINS.length
    ? await queryRows<{ two_factor_enabled: boolean | null }>(
        db,
        sql`select two_factor_enabled from "user" where email_verified and lower(email) in (${sql.join(
          config.STAFF_ADMINS.map((email) => sql`${email}`),
          sql`, `,
        )})`,
      )
    : [];
  if (admins.length === 0)
    return fail(
      name,
      "no admin account yet",
      `sign up at ${config.PUBLIC_URL}/admin/login with an address on STAFF_ADMINS and confirm it`,
    );
  const enrolled = admins.filter((admin) => admin.two_factor_enabled).length;
  if (config.STAFF_REQUIRE_TOTP && enrolled === 0)
    return fail(
      name,
      `${admins.length} admin account(s), none with two-factor (TOTP): ${config.NAIJALINK_MODE === "live" ? "live mode" : "STAFF_REQUIRE_TOTP"} keeps them out of the console`,
      "enrol TOTP at /admin while STAFF_REQUIRE_TOTP=false (or still in demo mode), then turn it back on",
    );
  return pass(name, `${admins.length} admin account(s), ${enrolled} with two-factor (TOTP)`);
}

/**
 * On a store that takes real money, the subscriptions still running on the demo's test card
 * (decision 122): each ends at its period end; the operator may end them sooner. No line while
 * the store itself sells through the test checkout.
 */
async function demoPurchasesCheck(
  db: Database,
  config: StoreConfig,
  now: Date,
): Promise<DoctorCheck | undefined> {
  if (usesTestCheckout(config)) return undefined;
  const name = "demo purchases";
  const running = await runningDemoPurchases(db, config, now);
  if (running.length === 0) return pass(name, "none running: every usable subscription was paid for");
  const listed = running.slice(0, 5).map((row) => orderNumberOf(row.id));
  const more = running.length > listed.length ? ` and ${running.length - listed.length} more` : "";
  return fail(
    name,
    `${running.length} subscription(s) bought with the demo's test card still work (${listed.join(", ")}${more}); none renews, the last ends ${formatLongDate(running.at(-1)!.expiresAt)}`,
    "leave them to expire, or end each now: find its order number at /admin/subscriptions and press Cancel now (docs/operating.md §6)",
  );
}

async function backupCheck(config: StoreConfig, now: Date): Promise<DoctorCheck> {
  const name = "backups";
  const last = await readLastBackup(config.DATA_DIR);
  const fix = "npm run backup -- --out FILE --passphrase-file FILE, nightly (docs/operating.md §7)";
  if (!last) return fail(name, "no backup recorded in DATA_DIR", fix);
  const at = new Date(last.at);
  return now.getTime() - at.getTime() > BACKUP_MAX_AGE_MS
    ? fail(name, `the last backup is ${ago(at, now)}`, fix)
    : pass(name, `the last backup was ${ago(at, now)}`);
}

/**
 * The same checks when no server holds DATA_DIR: the doctor opens the database itself, without
 * migrating (it only looks), and closes it. A store never started has no database to look at.
 */
export async function storeChecksOffline(config: Config, now = new Date()): Promise<DoctorCheck[]> {
  if (!config.DATABASE_URL && !fs.existsSync(path.join(config.DATA_DIR, "pglite", "PG_VERSION")))
    return [fail("database", `no database in ${config.DATA_DIR} yet`, "npm start creates it", true)];
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  try {
    return await storeChecks(database.db, database.kind, config, now, { reconcile: true });
  } finally {
    await database.close();
  }
}
