// Scheduled housekeeping: unpaid checkouts expire, and rows kept no longer are removed.
import { afterEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client.ts";
import {
  checkoutSessions,
  contactMessages,
  customerVerification,
  outboxMessages,
  rateLimit,
} from "#server/db/schema/index.ts";
import { purgeStale, RETENTION } from "#server/domain/ops/housekeeping.ts";
import { createTestDatabase, databaseKinds, ignoreTerminatedConnections } from "../../support/database.ts";

const now = new Date("2026-11-23T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const MINUTE = 60_000;

describe.each(databaseKinds)("housekeeping on %s", (kind) => {
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    ignoreTerminatedConnections(handle);
    await handle?.close();
    handle = undefined;
  });

  it("expires day-old unpaid checkouts, removes old expired ones, stale rate limits and old sent e-mails, and keeps the rest", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const session = (id: string, status: "open" | "paid" | "expired", createdAt: Date) => ({
      id,
      provider: "test" as const,
      planId: "unlock",
      amountCents: 999,
      status,
      createdAt,
    });
    await db
      .insert(checkoutSessions)
      .values([
        session("cs_open_old", "open", ago(RETENTION.openCheckoutMs + MINUTE)),
        session("cs_open_new", "open", ago(MINUTE)),
        session("cs_expired_old", "expired", ago(RETENTION.expiredCheckoutMs + MINUTE)),
        session("cs_paid_old", "paid", ago(RETENTION.expiredCheckoutMs + MINUTE)),
      ]);
    await db.insert(rateLimit).values([
      { id: "r1", key: "app:old", count: 3, lastRequest: now.getTime() - RETENTION.rateLimitMs - MINUTE },
      { id: "r2", key: "app:new", count: 3, lastRequest: now.getTime() - MINUTE },
    ]);
    const email = (id: string, status: "pending" | "sent", at: Date) => ({
      id,
      kind: "vpn-config",
      toAddress: "a@example.com",
      sealedMessage: "sealed",
      status,
      sentAt: status === "sent" ? at : null,
      createdAt: at,
    });
    await db
      .insert(outboxMessages)
      .values([
        email("00000000-0000-4000-8000-000000000001", "sent", ago(RETENTION.sentEmailMs + MINUTE)),
        email("00000000-0000-4000-8000-000000000002", "sent", ago(MINUTE)),
        email("00000000-0000-4000-8000-000000000003", "pending", ago(RETENTION.sentEmailMs + MINUTE)),
      ]);

    await db.insert(customerVerification).values([
      { id: "v-old", identifier: "magic-link:old", value: "{}", expiresAt: ago(MINUTE) },
      { id: "v-new", identifier: "magic-link:new", value: "{}", expiresAt: new Date(now.getTime() + MINUTE) },
    ]);

    expect(await purgeStale(db, now)).toEqual({
      expiredCheckouts: 1,
      removedCheckouts: 1,
      removedRateLimits: 1,
      removedEmails: 1,
      removedCustomerSignIns: 1,
      removedMessages: 0,
      removedDnsChecks: 0,
    });
    expect((await db.select().from(customerVerification)).map((row) => row.id)).toEqual(["v-new"]);
    const sessions = await db.select().from(checkoutSessions);
    expect(Object.fromEntries(sessions.map((row) => [row.id, row.status]))).toEqual({
      cs_open_old: "expired",
      cs_open_new: "open",
      cs_paid_old: "paid",
    });
    expect((await db.select().from(rateLimit)).map((row) => row.key)).toEqual(["app:new"]);
    expect((await db.select().from(outboxMessages)).map((row) => row.id).sort()).toEqual([
      "00000000-0000-4000-8000-000000000002",
      "00000000-0000-4000-8000-000000000003",
    ]);
    expect(await purgeStale(db, now)).toEqual({
      expiredCheckouts: 0,
      removedCheckouts: 0,
      removedRateLimits: 0,
      removedEmails: 0,
      removedCustomerSignIns: 0,
      removedMessages: 0,
      removedDnsChecks: 0,
    });
  });

  it("removes a closed contact message once the retention period has passed since it was closed, and no other", async () => {
    handle = await createTestDatabase(kind);
    const { db } = handle;
    const message = (subject: string, status: "new" | "answered" | "closed", changedAt: Date | null) => ({
      name: "Ada Obi",
      email: "ada@example.com",
      subject,
      message: "Hello",
      status,
      statusChangedAt: changedAt,
      createdAt: ago(2 * RETENTION.closedMessageMs),
    });
    await db
      .insert(contactMessages)
      .values([
        message("closed long ago", "closed", ago(RETENTION.closedMessageMs + MINUTE)),
        message("closed recently", "closed", ago(RETENTION.closedMessageMs - MINUTE)),
        message("answered long ago", "answered", ago(RETENTION.closedMessageMs + MINUTE)),
        message("never touched", "new", null),
      ]);

    expect((await purgeStale(db, now)).removedMessages).toBe(1);
    expect((await db.select().from(contactMessages)).map((row) => row.subject).sort()).toEqual([
      "answered long ago",
      "closed recently",
      "never touched",
    ]);
    expect((await purgeStale(db, new Date(now.getTime() + 2 * MINUTE))).removedMessages).toBe(1);
  });
});
