import { and, count, eq, exists, gte } from "drizzle-orm";
import type { Executor } from "#server/db/client.ts";
import { checkoutSessions, devices, subscriptions } from "#server/db/schema/index.ts";

/**
 * Checkouts since a moment: started (sessions created), paid, and fulfilled (subscriptions that
 * got their first config). Counted from the database, so every app process reports the same.
 */
export interface CheckoutFunnel {
  started: number;
  paid: number;
  fulfilled: number;
}

export async function checkoutFunnel(executor: Executor, since: Date): Promise<CheckoutFunnel> {
  const [started] = await executor
    .select({ sessions: count() })
    .from(checkoutSessions)
    .where(gte(checkoutSessions.createdAt, since));
  const [paid] = await executor
    .select({ sessions: count() })
    .from(checkoutSessions)
    .where(gte(checkoutSessions.paidAt, since));
  const [fulfilled] = await executor
    .select({ subscriptions: count() })
    .from(subscriptions)
    .where(
      and(
        gte(subscriptions.createdAt, since),
        exists(
          executor
            .select({ id: devices.id })
            .from(devices)
            .where(eq(devices.subscriptionId, subscriptions.id)),
        ),
      ),
    );
  return {
    started: Number(started?.sessions ?? 0),
    paid: Number(paid?.sessions ?? 0),
    fulfilled: Number(fulfilled?.subscriptions ?? 0),
  };
}
