import { usesTestCheckout, type Config } from "./config.ts";
import { openDatabase, type Database, type DatabaseHandle, type DatabaseKind } from "./db/client.ts";
import { migrate } from "./db/migrate.ts";
import { canAlterAuditLog, currentRole, grantAppRole } from "./db/roles.ts";
import { createCustomerAuth, type CustomerAuth } from "./domain/account/customer-auth.ts";
import { createAuth, type Auth } from "./domain/auth/auth.ts";
import { watchBlogFreshness, type BlogFreshness } from "./domain/blog/freshness.ts";
import { seedSamplePosts } from "./domain/blog/seed.ts";
import { createShareCards, type ShareCards } from "./domain/share-cards/cards.tsx";
import { createMailTransport, type MailTransport } from "./domain/mail/transport.ts";
import { removeAdminToken, writeAdminToken } from "./domain/vpn/admin-token.ts";
import { createAppMetrics, type AppMetrics } from "./domain/ops/metrics.ts";
import { ensureDevelopmentServer, retireDevelopmentServers } from "./domain/vpn/development-server.ts";
import { startPeerChangeFeed, type PeerChangeFeed } from "./domain/vpn/peer-changes.ts";
import { startBackgroundJobs } from "./background-jobs.ts";
import { createLogger, type Logger } from "./logger.ts";
import { startMailService, type MailService } from "./mail-service.ts";
import {
  checkSealingKey,
  createSealer,
  loadSecrets,
  securePrivateDirectory,
  type Sealer,
} from "./secrets.ts";

/** Everything a request handler may use, passed explicitly (no module singletons). */
export interface AppServices {
  config: Config;
  db: Database;
  dbKind: DatabaseKind;
  logger: Logger;
  sealer: Sealer;
  authSecret: string;
  mail: MailService;
  /** Wakes held node polls when a VPN server's peers change. */
  peerChanges: PeerChangeFeed;
  /** How current the public blog is, for the page cache; sees writes from every process (081). */
  blogFreshness: BlogFreshness;
  /** The Open Graph share cards, drawn on demand and kept by version. */
  shareCards: ShareCards;
  /** better-auth: staff accounts and sessions (server/domain/auth). */
  auth: Auth;
  /** better-auth: customers' e-mailed sign-in links and sessions, apart from staff. */
  customerAuth: CustomerAuth;
  /** This instance's Prometheus registry (GET /metrics). */
  metrics: AppMetrics;
}

export interface ServiceOptions {
  /** A database opened by the caller (tests hand in a fresh PGlite or PostgreSQL database). */
  database?: DatabaseHandle;
  logger?: Logger;
  transport?: MailTransport;
  /** Start timers (outbox worker, expiry). Tests that drive time themselves turn this off. */
  backgroundJobs?: boolean;
}

export interface RunningServices {
  services: AppServices;
  close(): Promise<void>;
}

/**
 * With DATABASE_MIGRATION_URL, the owner's connection migrates and grants the app's role what it
 * may do (db/roles.ts); without it the app's own connection migrates (PGlite, or one role).
 */
async function migrateAsOwner(config: Config, database: DatabaseHandle): Promise<string[]> {
  if (!config.DATABASE_MIGRATION_URL) return migrate(database.db);
  const owner = await openDatabase({ databaseUrl: config.DATABASE_MIGRATION_URL, dataDir: config.DATA_DIR });
  try {
    const applied = await migrate(owner.db);
    await grantAppRole(owner.db, await currentRole(database.db));
    return applied;
  } finally {
    await owner.close();
  }
}

export async function startServices(config: Config, options: ServiceOptions = {}): Promise<RunningServices> {
  const logger = options.logger ?? createLogger({ level: config.LOG_LEVEL });
  const tightened = await securePrivateDirectory(config.DATA_DIR);
  if (tightened) logger.warn({ files: tightened }, "DATA_DIR had files others could read; made them private");
  const database =
    options.database ?? (await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR }));
  // PGlite's WebAssembly file system gives its files mode 0666 whatever the umask: DATA_DIR's
  // 0700 keeps them from other users; they are tightened as well once it has opened and closed.
  await securePrivateDirectory(config.DATA_DIR);
  const applied = await migrateAsOwner(config, database);
  if (applied.length) logger.info({ migrations: applied }, "database migrated");
  if (database.kind === "postgres" && (await canAlterAuditLog(database.db)))
    logger.warn(
      { database: "DATABASE_URL" },
      "the app's database role owns the staff audit log and could alter it: run the app as its own role and migrate with DATABASE_MIGRATION_URL (docs/operating.md, Database roles)",
    );
  const developmentServer =
    config.NAIJALINK_MODE === "demo" ? await ensureDevelopmentServer(database.db, config) : undefined;
  if (developmentServer)
    logger.info({ vpnServer: developmentServer.name }, "created the development VPN server");
  if (config.NAIJALINK_MODE === "live") {
    for (const server of await retireDevelopmentServers(database.db)) {
      const next = server.liveDevices
        ? `its ${server.liveDevices} rehearsal device(s) can never connect: npm run vpn -- move-devices ${server.name} --to SERVER (or revoke-devices ${server.name}), then remove-server ${server.name}`
        : `remove it: npm run vpn -- remove-server ${server.name}`;
      logger.warn(
        { vpnServer: server.name, liveDevices: server.liveDevices },
        `development VPN server ${server.name} ${server.retiredNow ? "retired" : "still present"}: live mode sells none of its configs; ${next}`,
      );
    }
  }
  if (config.SEED_SAMPLE_CONTENT) {
    const seeded = await seedSamplePosts(database.db);
    if (seeded) logger.info({ posts: seeded }, "sample blog posts written to an empty blog");
  }
  const secrets = await loadSecrets(config);
  const sealer = createSealer(secrets.configEncryptionKey);
  await checkSealingKey(database.db, sealer);
  const transport = options.transport ?? createMailTransport(config);
  logger.info(
    {
      mode: config.NAIJALINK_MODE,
      checkout: usesTestCheckout(config)
        ? "built-in test checkout (payments are simulated)"
        : "Stripe Checkout",
      database: database.kind === "pglite" ? `PGlite in ${config.DATA_DIR}` : "PostgreSQL (DATABASE_URL)",
      mail: transport.description,
    },
    `${config.NAIJALINK_MODE} mode`,
  );

  const backgroundJobs = options.backgroundJobs ?? true;
  const mail = startMailService({ db: database.db, sealer, transport, logger, config, backgroundJobs });

  // `npm run vpn` authenticates with the admin token file.
  await writeAdminToken(config.DATA_DIR);
  const peerChanges = await startPeerChangeFeed({
    db: database.db,
    kind: database.kind,
    logger,
  });
  const blogFreshness = await watchBlogFreshness(database.db, database.kind, logger);

  const base: Omit<AppServices, "auth" | "customerAuth"> = {
    config,
    metrics: createAppMetrics(),
    db: database.db,
    dbKind: database.kind,
    logger,
    peerChanges: peerChanges.feed,
    blogFreshness,
    shareCards: createShareCards(),
    sealer,
    authSecret: secrets.authSecret,
    mail: mail.mail,
  };
  const services: AppServices = { ...base, auth: createAuth(base), customerAuth: createCustomerAuth(base) };
  const jobs = backgroundJobs ? startBackgroundJobs(services) : [];

  return {
    services,
    async close() {
      await mail.stop();
      await Promise.all(jobs.map((job) => job.stop()));
      await peerChanges.close();
      await blogFreshness.close();
      await removeAdminToken(config.DATA_DIR);
      await database.close();
      await securePrivateDirectory(config.DATA_DIR);
    },
  };
}
