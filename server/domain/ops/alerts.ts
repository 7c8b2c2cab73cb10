import { and, eq, isNull, notInArray, sql } from "drizzle-orm";
import type { Transaction } from "#server/db/client.ts";
import { staffAlerts } from "#server/db/schema/index.ts";
import { outboxBacklog } from "#server/domain/mail/backlog.ts";
import { LISTED_WAITING_BUYERS, type EmailData } from "#server/domain/mail/email-data.ts";
import { awaitingConfiguration } from "#server/domain/billing/waiting-buyers.ts";
import { listServerOverviews } from "./server-health.ts";
import { abroad, countryDatabase } from "#server/domain/vpn/exit-country.ts";
import { failingRequiredChecks } from "#server/domain/vpn/streaming-checks.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";
import type { AppServices } from "#server/services.ts";

// Staff alerts: each outage e-mails the admins once. An outage is a key with an
// open row in `staff_alerts`; the partial unique index lets one process of many open it, in the
// transaction that queues its e-mails. When the condition is gone the row is resolved, and the
// same trouble later is a new outage with a new e-mail.

export const ALERT_AFTER = {
  /** Agents report every 30 s: four missed reports. */
  nodeSilentMs: 120_000,
  outboxOldestMs: 600_000,
};

export type AlertServices = Pick<AppServices, "config" | "db" | "logger" | "mail">;

interface Condition {
  key: string;
  /** The log line, at error level: the alert's own e-mail may be late (the outbox may be what is stuck). */
  summary: string;
  fields: Record<string, unknown>;
  email: EmailData<"staff-alert">;
}

async function currentConditions(tx: Transaction, now: Date): Promise<Condition[]> {
  // One after another: a transaction runs one statement at a time.
  // The servers' states only: what each device did lately is the servers page's (decision 138).
  const nodes = await listServerOverviews(tx, now);
  const backlog = await outboxBacklog(tx);
  const waiting = await awaitingConfiguration(tx, now);
  const selling = await anyServerCanTakeDevice(tx);
  const conditions: Condition[] = [];
  if (!selling) {
    conditions.push({
      key: "sales-stopped",
      summary: "sales are stopped: no VPN server can take a device",
      fields: { vpnServers: nodes.map((node) => `${node.name}: ${node.state}`) },
      email: {
        alert: "sales-stopped",
        servers: nodes.slice(0, 100).map(({ name, explanation }) => ({ name, explanation })),
      },
    });
  }
  for (const node of nodes) {
    const lastSeenAt = node.lastSeenAt ? new Date(node.lastSeenAt) : null;
    // A node that never reported is being set up (or is the demo's placeholder), and a server out
    // of service with no peers to carry (disabled, or drained empty) is being retired: neither is an outage.
    if (!lastSeenAt || (node.status !== "active" && node.desiredPeers === 0)) continue;
    if (now.getTime() - lastSeenAt.getTime() < ALERT_AFTER.nodeSilentMs) continue;
    conditions.push({
      key: `node-silent:${node.id}`,
      summary: `VPN node ${node.name} has stopped reporting`,
      fields: { vpnServer: node.name, lastSeenAt: lastSeenAt.toISOString() },
      email: {
        alert: "node-silent",
        node: { name: node.name, lastSeenAt, desiredPeers: node.desiredPeers },
        now,
      },
    });
  }
  for (const node of nodes) {
    const outside = abroad(node.exitCountries);
    if (node.development || outside.length === 0) continue;
    // Keyed by the addresses: one e-mail per server and set of addresses, a new one when they change.
    const addresses = outside.map((exit) => exit.address).sort();
    conditions.push({
      key: `exit-abroad:${node.id}:${addresses.join(",")}`,
      summary: `VPN server ${node.name}: its exit address does not appear to be in Nigeria`,
      fields: { vpnServer: node.name, exits: outside.map((exit) => `${exit.address} ${exit.country}`) },
      email: {
        alert: "exit-abroad",
        server: node.name,
        exits: outside.slice(0, 20),
        databaseBuiltAt: (await countryDatabase()).builtAt,
      },
    });
  }
  // One outage per server and required service that stopped working through it (decision 133);
  // resolved when a check passes again, or the service is removed.
  for (const failing of await failingRequiredChecks(tx)) {
    if (failing.development) continue;
    conditions.push({
      key: `streaming-refused:${failing.serverId}:${failing.serviceId}`,
      summary: `VPN server ${failing.serverName}: ${failing.serviceName} does not work through it`,
      fields: { vpnServer: failing.serverName, service: failing.serviceName, reason: failing.reason },
      email: {
        alert: "streaming-refused",
        server: failing.serverName,
        service: failing.serviceName,
        reason: failing.reason ?? "refused",
        checkedAt: failing.checkedAt,
      },
    });
  }
  const { oldestPendingAt } = backlog;
  if (oldestPendingAt && now.getTime() - oldestPendingAt.getTime() >= ALERT_AFTER.outboxOldestMs) {
    conditions.push({
      key: "outbox-stuck",
      summary: "e-mail is not going out; this alert's own e-mail waits in the same outbox",
      fields: { pending: backlog.pending, oldestPendingAt: oldestPendingAt.toISOString() },
      email: { alert: "outbox-stuck", outbox: { pending: backlog.pending, oldestPendingAt }, now },
    });
  }
  if (waiting.length > 0) {
    const listed = waiting.slice(0, LISTED_WAITING_BUYERS);
    conditions.push({
      key: "configuration-pending",
      summary: "paid buyers are waiting at Configuration Pending",
      fields: {
        waiting: waiting.length,
        subscriptionIds: listed.flatMap((buyer) => buyer.subscriptionId ?? []),
        // Counted, not named: a checkout session id opens the buyer's config, so it never reaches a log.
        paidCheckoutsWithoutSubscription: listed.filter((buyer) => !buyer.subscriptionId).length,
      },
      email: { alert: "configuration-pending", waiting: waiting.length, listed },
    });
  }
  return conditions;
}

/** Opens the outage and queues its e-mails unless it is open already; true when this call opened it. */
async function openAlert(
  tx: Transaction,
  services: AlertServices,
  condition: Condition,
  now: Date,
): Promise<boolean> {
  const [open] = await tx
    .select({ id: staffAlerts.id })
    .from(staffAlerts)
    .where(and(eq(staffAlerts.key, condition.key), isNull(staffAlerts.resolvedAt)));
  if (open) return false;
  const [row] = await tx
    .insert(staffAlerts)
    .values({ key: condition.key, openedAt: now })
    .onConflictDoNothing({ target: staffAlerts.key, where: sql`${staffAlerts.resolvedAt} is null` })
    .returning({ id: staffAlerts.id });
  if (!row) return false;
  for (const to of services.config.STAFF_ADMINS)
    await services.mail.enqueue(tx, { template: "staff-alert", to, data: condition.email });
  return true;
}

/**
 * Checks every alert once (the job runs it every 30 s on every app process). Checks of several
 * processes take turns on an advisory lock, so each reads what the one before it wrote: a node
 * that reported in between cannot be resolved by one process and opened again by another that
 * read before the report. The unique open key would keep a second e-mail out even without it.
 */
export async function checkStaffAlerts(
  services: AlertServices,
  now = new Date(),
): Promise<{ alertsOpened: number; alertsResolved: number }> {
  const { opened, resolved } = await services.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('staff-alerts'))`);
    const conditions = await currentConditions(tx, now);
    const opened: Condition[] = [];
    for (const condition of conditions)
      if (await openAlert(tx, services, condition, now)) opened.push(condition);
    const stillWrong = conditions.map((condition) => condition.key);
    const resolved = await tx
      .update(staffAlerts)
      .set({ resolvedAt: now })
      .where(
        and(
          isNull(staffAlerts.resolvedAt),
          stillWrong.length ? notInArray(staffAlerts.key, stillWrong) : undefined,
        ),
      )
      .returning({ key: staffAlerts.key });
    return { opened, resolved };
  });
  if (opened.length) services.mail.wake();
  for (const condition of opened)
    services.logger.error(
      { alert: condition.key, ...condition.fields, staffNotified: services.config.STAFF_ADMINS.length },
      `staff alert: ${condition.summary}`,
    );
  for (const { key } of resolved) services.logger.info({ alert: key }, "staff alert resolved");
  return { alertsOpened: opened.length, alertsResolved: resolved.length };
}

/** How many differences one alert e-mail lists; the rest are on /admin. */
export const LISTED_LEDGER_DIFFERENCES = 50;

/**
 * Reconciliation's alert (decision 124): one e-mail per run listing the differences it found for
 * the first time, queued in the run's transaction. A difference already reported is never in
 * another: the caller passes only those it opened, and logs the alert once its transaction commits.
 */
export async function alertLedgerDifferences(
  tx: Transaction,
  services: Pick<AlertServices, "config" | "mail">,
  differences: Array<{ detail: string; fix: string }>,
  now: Date,
): Promise<void> {
  if (differences.length === 0) return;
  const listed = differences.slice(0, LISTED_LEDGER_DIFFERENCES).map(({ detail, fix }) => ({ detail, fix }));
  for (const to of services.config.STAFF_ADMINS)
    await services.mail.enqueue(tx, {
      template: "staff-alert",
      to,
      data: { alert: "ledger-differences", differences: listed, total: differences.length, now },
    });
}
