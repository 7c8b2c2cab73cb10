import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Database } from "#server/db/client.ts";
import { checkoutFunnel } from "./checkout-funnel.ts";
import { LEDGER_SIGN, ledgerTotalsByKind } from "#server/domain/billing/ledger.ts";
import type { LedgerKind } from "#server/db/schema/index.ts";
import { outboxBacklog } from "#server/domain/mail/backlog.ts";
import { awaitingConfiguration } from "#server/domain/billing/waiting-buyers.ts";
import { listServerHealth } from "./server-health.ts";
import { countryDatabase, HOME_COUNTRY } from "#server/domain/vpn/exit-country.ts";
import { anyServerCanTakeDevice } from "#server/domain/vpn/servers.ts";

// What /metrics shows. HTTP figures are this process's own counters; business
// figures are read from the database at each scrape, so every process of one store agrees on
// them. Labels are bounded: route patterns, methods, statuses, VPN server names. Never an
// address, token or key.

const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const FUNNEL_WINDOW_MS = 86_400_000;

export interface RequestSample {
  /** The route pattern that answered (`/blog/:slug`), never the URL itself. */
  route: string;
  method: string;
  status: number;
  seconds: number;
}

export interface AppMetrics {
  /** This app instance's own registry: tests run several apps in one process. */
  readonly registry: Registry;
  observeRequest(sample: RequestSample): void;
  /** The Prometheus text, with the database figures read now. */
  render(db: Database, now?: Date): Promise<string>;
}

export function createAppMetrics(): AppMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metric = <T>(make: (registers: Registry[]) => T) => make([registry]);

  const requests = metric(
    (registers) =>
      new Counter({
        name: "naijalink_http_requests_total",
        help: "HTTP requests answered by this process, by route pattern, method and status",
        labelNames: ["route", "method", "status"] as const,
        registers,
      }),
  );
  const latency = metric(
    (registers) =>
      new Histogram({
        name: "naijalink_http_request_duration_seconds",
        help: "Time to answer an HTTP request in this process, by route pattern and method",
        labelNames: ["route", "method"] as const,
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
        registers,
      }),
  );
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    metric((registers) => new Gauge<L>({ name, help, labelNames, registers }));

  const checkouts = gauge(
    "naijalink_checkouts_last_24h",
    "Checkouts in the last 24 hours by stage: started, paid, fulfilled (config issued)",
    ["stage"],
  );
  const pending = gauge(
    "naijalink_configuration_pending",
    "Buyers who paid over a minute ago and still have no config (Configuration Pending)",
  );
  const outboxPending = gauge("naijalink_outbox_pending_messages", "E-mails waiting in the outbox");
  const outboxOldest = gauge(
    "naijalink_outbox_oldest_pending_age_seconds",
    "Age of the oldest e-mail waiting in the outbox (0 when none waits)",
  );
  const outboxFailed = gauge(
    "naijalink_outbox_failed_messages",
    "E-mails parked as failed after every retry, waiting for a person",
  );
  const ledgerCents = gauge(
    "naijalink_ledger_cents",
    "Money the ledger recorded, all time, by kind (charge, credit, refund, dispute, dispute_won, dispute_lost), in cents",
    ["kind"],
  );
  const netRevenue = gauge(
    "naijalink_net_revenue_cents",
    "Net revenue, all time, in cents: charges and won disputes less credits, refunds and disputes",
  );
  const salesStopped = gauge(
    "naijalink_sales_stopped",
    "1 when no VPN server can take a device, so no checkout starts (decision 094); 0 while selling",
  );
  const desiredPeers = gauge("naijalink_vpn_server_desired_peers", "Peers the VPN server's node must carry", [
    "server",
  ]);
  const desiredVersion = gauge(
    "naijalink_vpn_server_desired_peer_version",
    "The VPN server's current peer-set version",
    ["server"],
  );
  const appliedVersion = gauge(
    "naijalink_vpn_server_applied_peer_version",
    "The peer-set version the node's agent last reported applied (absent until it reports)",
    ["server"],
  );
  const lastSeen = gauge(
    "naijalink_vpn_server_last_seen_timestamp_seconds",
    "When the node's agent last reported (Unix time; absent until it reports)",
    ["server"],
  );
  const active = gauge(
    "naijalink_vpn_server_active",
    "1 when the VPN server takes new devices, 0 when draining or disabled",
    ["server"],
  );
  const exits = gauge(
    "naijalink_vpn_server_exit_addresses",
    `The VPN server's exit addresses by where the shipped country database places them: appears="${HOME_COUNTRY}", "elsewhere", or "unknown" (not in the database)`,
    ["server", "appears"],
  );
  const countryDatabaseAge = gauge(
    "naijalink_country_database_built_timestamp_seconds",
    "When the country database that places exit addresses was built (Unix time)",
  );

  return {
    registry,
    observeRequest({ route, method, status, seconds }) {
      const knownMethod = HTTP_METHODS.has(method) ? method : "OTHER";
      requests.inc({ route, method: knownMethod, status: String(status) });
      latency.observe({ route, method: knownMethod }, seconds);
    },
    async render(db, now = new Date()) {
      // Everything is read before any gauge changes, so two scrapes at once cannot interleave.
      const [funnel, awaiting, backlog, nodes, selling, money] = await Promise.all([
        checkoutFunnel(db, new Date(now.getTime() - FUNNEL_WINDOW_MS)),
        awaitingConfiguration(db, now),
        outboxBacklog(db),
        listServerHealth(db, now),
        anyServerCanTakeDevice(db),
        ledgerTotalsByKind(db),
      ]);
      for (const [kind, cents] of Object.entries(money)) ledgerCents.set({ kind }, cents);
      netRevenue.set(
        Object.entries(money).reduce(
          (sum, [kind, cents]) => sum + LEDGER_SIGN[kind as LedgerKind] * cents,
          0,
        ),
      );
      salesStopped.set(selling ? 0 : 1);
      for (const stage of ["started", "paid", "fulfilled"] as const) checkouts.set({ stage }, funnel[stage]);
      pending.set(awaiting.length);
      outboxPending.set(backlog.pending);
      outboxFailed.set(backlog.failed);
      outboxOldest.set(
        backlog.oldestPendingAt ? Math.max(0, (now.getTime() - backlog.oldestPendingAt.getTime()) / 1000) : 0,
      );
      countryDatabaseAge.set((await countryDatabase()).builtAt.getTime() / 1000);
      for (const perServer of [desiredPeers, desiredVersion, appliedVersion, lastSeen, active, exits])
        perServer.reset();
      for (const node of nodes) {
        const server = { server: node.name };
        desiredPeers.set(server, node.desiredPeers);
        desiredVersion.set(server, Number(node.desiredVersion));
        active.set(server, node.status === "active" ? 1 : 0);
        if (node.appliedVersion !== null) appliedVersion.set(server, Number(node.appliedVersion));
        if (node.lastSeenAt) lastSeen.set(server, new Date(node.lastSeenAt).getTime() / 1000);
        const appears = { [HOME_COUNTRY]: 0, elsewhere: 0, unknown: 0 };
        for (const { country } of node.exitCountries)
          appears[country === null ? "unknown" : country === HOME_COUNTRY ? HOME_COUNTRY : "elsewhere"] += 1;
        for (const [where, value] of Object.entries(appears)) exits.set({ ...server, appears: where }, value);
      }
      return registry.metrics();
    },
  };
}
