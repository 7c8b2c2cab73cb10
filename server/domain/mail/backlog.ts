import { count, inArray, min } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import { outboxMessages } from "#server/db/schema/index.ts";

/** What the outbox still holds: waiting (with the oldest's queue time) and parked as failed. */
export interface OutboxBacklog {
  pending: number;
  oldestPendingAt: Date | null;
  failed: number;
}

export async function outboxBacklog(executor: Executor): Promise<OutboxBacklog> {
  const rows = await executor
    .select({ status: outboxMessages.status, messages: count(), oldest: min(outboxMessages.createdAt) })
    .from(outboxMessages)
    .where(inArray(outboxMessages.status, ["pending", "failed"]))
    .groupBy(outboxMessages.status);
  const pending = rows.find((row) => row.status === "pending");
  const failed = rows.find((row) => row.status === "failed");
  return {
    pending: Number(pending?.messages ?? 0),
    // min() of a timestamp comes back as text on one driver and a Date on the other.
    oldestPendingAt: pending?.oldest ? new Date(pending.oldest) : null,
    failed: Number(failed?.messages ?? 0),
  };
}
