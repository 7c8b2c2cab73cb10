// The app's repeating jobs: each tick runs in one app process (domain/ops/jobs.ts).
import { reconcileWithStripe } from "./domain/billing/reconciliation.ts";
import { queueDueReminders } from "./domain/billing/reminders.ts";
import { serveWaitingBuyers } from "./domain/billing/waiting-buyers.ts";
import { checkStaffAlerts } from "./domain/ops/alerts.ts";
import { purgeStale } from "./domain/ops/housekeeping.ts";
import { startRepeatingJob, type RepeatingJob } from "./domain/ops/jobs.ts";
import { queueConfigUpdateNotices } from "./domain/vpn/config-notices.ts";
import { expireDue } from "./domain/vpn/lifecycle.ts";
import { PEER_CHANGE_RETENTION_MS, prunePeerChanges } from "./domain/vpn/peer-changes.ts";
import { DAY_MS } from "./domain/time.ts";
import type { AppServices } from "./services.ts";

/**
 * Subscriptions that ended lose their peers (every minute); renewal and pass-ending reminders
 * go out (every 15 minutes); staff alerts are checked (every 30 seconds); stale rows go (every
 * hour); the node change log keeps an hour (pruned every 5 minutes); owners of out-of-date configs
 * are e-mailed (every minute); a live store's ledger is reconciled with Stripe (every day; a demo
 * store takes no Stripe money).
 */
export function startBackgroundJobs(services: AppServices): RepeatingJob[] {
  const { db, logger } = services;
  const every = (intervalMs: number, job: string) => ({ logger, intervalMs, shared: { db, job } });
  const jobs = [
    startRepeatingJob(
      "ended subscriptions and revoked their devices",
      () => expireDue(services),
      every(60_000, "expiry"),
    ),
    startRepeatingJob(
      "renewal and pass-ending reminders",
      () => queueDueReminders(services),
      every(900_000, "reminders"),
    ),
    startRepeatingJob("staff alerts", () => checkStaffAlerts(services), every(30_000, "staff-alerts")),
    // Buyers at Configuration Pending get their config once a server has room.
    startRepeatingJob(
      "configs issued to buyers waiting for room",
      () => serveWaitingBuyers(services),
      every(30_000, "waiting-buyers"),
    ),
    startRepeatingJob(
      "out-of-date config notices",
      () => queueConfigUpdateNotices(services),
      every(60_000, "config-notices"),
    ),
    startRepeatingJob("housekeeping", () => purgeStale(db), every(3_600_000, "housekeeping")),
    startRepeatingJob(
      "pruned old VPN peer changes",
      async () => ({
        removed: await prunePeerChanges(db, new Date(Date.now() - PEER_CHANGE_RETENTION_MS)),
      }),
      every(300_000, "peer-change-pruning"),
    ),
  ];
  if (services.config.NAIJALINK_MODE === "live")
    jobs.push(
      startRepeatingJob(
        "ledger reconciled with Stripe",
        () => reconcileWithStripe(services),
        every(DAY_MS, "reconciliation"),
      ),
    );
  return jobs;
}
