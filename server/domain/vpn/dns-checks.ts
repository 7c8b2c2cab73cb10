// The /check DNS test: the page has the browser resolve a per-visit name under
// VPN_DNS_CHECK_ZONE; only a node's own resolver answers that zone (its agent does), and the node
// reports the names' first labels. A nonce a node reported means the visitor's resolver is that node's.
import { and, eq, gte, lt } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import { dnsChecks, vpnServers } from "#server/db/schema/index.ts";
import { rateLimited } from "#server/domain/errors.ts";
import { consumeRateLimit } from "#server/domain/rate-limit.ts";

/** How long a reported nonce answers, and is kept. */
export const DNS_CHECK_RETENTION_MS = 10 * 60_000;

/** Stores the nonces a node's resolver was asked for; a nonce already stored keeps its first report. */
export async function recordDnsChecks(
  executor: Executor,
  serverId: string,
  nonces: readonly string[],
  now = new Date(),
): Promise<void> {
  const unique = [...new Set(nonces)];
  if (unique.length === 0) return;
  await executor
    .insert(dnsChecks)
    .values(unique.map((nonce) => ({ nonce, serverId, seenAt: now })))
    .onConflictDoNothing();
}

/** A page polls every 2 s for about a minute; a visitor gets a few checks' worth. */
export const DNS_CHECK_LIMIT = { limit: 90, windowMs: 60_000 };

/** `GET /api/check/dns`: the visitor's question, counted per client. */
export async function answerDnsCheck(
  executor: Executor,
  nonce: string,
  clientIp: string,
  now = new Date(),
): Promise<{ viaNode: boolean; server?: string }> {
  const limit = await consumeRateLimit(executor, `dns-check:${clientIp}`, {
    ...DNS_CHECK_LIMIT,
    now: now.getTime(),
  });
  if (!limit.allowed) throw rateLimited(limit.retryAfterSeconds);
  return dnsCheckResult(executor, nonce, now);
}

/** Whether a node's resolver reported `nonce` in the last 10 minutes, and which server's. */
export async function dnsCheckResult(
  executor: Executor,
  nonce: string,
  now = new Date(),
): Promise<{ viaNode: boolean; server?: string }> {
  const [row] = await executor
    .select({ server: vpnServers.name })
    .from(dnsChecks)
    .innerJoin(vpnServers, eq(vpnServers.id, dnsChecks.serverId))
    .where(
      and(
        eq(dnsChecks.nonce, nonce),
        gte(dnsChecks.seenAt, new Date(now.getTime() - DNS_CHECK_RETENTION_MS)),
      ),
    );
  return row ? { viaNode: true, server: row.server } : { viaNode: false };
}

/** Removes reports older than the retention (housekeeping). */
export async function purgeDnsChecks(executor: Executor, now = new Date()): Promise<number> {
  const removed = await executor
    .delete(dnsChecks)
    .where(lt(dnsChecks.seenAt, new Date(now.getTime() - DNS_CHECK_RETENTION_MS)))
    .returning({ nonce: dnsChecks.nonce });
  return removed.length;
}
