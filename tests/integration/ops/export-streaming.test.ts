// Decision 131 (with 106): the orders export is read from the database as the download is read,
// a page per chunk. Read slowly, it never runs ahead: the pages read stay within one of the chunks
// taken, whatever the export's size, so the server holds a page at a time and not the export.
import { sql, type Logger } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client.ts";
import { exportCsv, exportRequestSchema } from "#server/domain/ops/exports.ts";
import { createTestDatabase, databaseKinds } from "../../support/database.ts";

const DAY = "2026-04-02";
const ROWS = 5_000;
const PAGE = 100;

/** Lets any read the stream would make on its own happen before the next check. */
const settle = async () => {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
};

describe.each(databaseKinds)("the orders export, read slowly, on %s", (kind) => {
  let database: DatabaseHandle;
  let pagesRead = 0;
  const counter: Logger = {
    logQuery(query) {
      if (/^select .* from "checkout_sessions" left join "subscriptions"/is.test(query)) pagesRead++;
    },
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    await database.db.execute(sql`
      insert into checkout_sessions (id, provider, plan_id, customer_email, amount_cents, currency, status, created_at)
      select 'cs_stream_' || lpad(g::text, 5, '0'), 'test', 'unlock', 'stream-' || g || '@example.com', 299, 'usd',
             'expired', ${`${DAY}T00:00:00Z`}::timestamptz + g * interval '1 second'
      from generate_series(1, ${ROWS}) g`);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** The same database seen through a logger that counts the export's page queries. */
  function countingExecutor() {
    const db = database.db as unknown as { session: { logger: Logger } };
    const original = db.session.logger;
    db.session.logger = counter;
    return { executor: database.db, restore: () => (db.session.logger = original) };
  }

  it("starts before the rows are read, and never holds more than a page beyond what was taken", async () => {
    const { executor, restore } = countingExecutor();
    try {
      const request = exportRequestSchema.parse({ kind: "orders", from: DAY, to: DAY });
      const reader = exportCsv(executor, request, { pageSize: PAGE }).getReader();
      await settle();
      // Nothing is read before the download asks.
      expect(pagesRead).toBe(0);
      const decoder = new TextDecoder();
      let text = "";
      let chunks = 0;
      let mostAhead = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks++;
        text += decoder.decode(value, { stream: true });
        if (chunks === 1) expect(pagesRead).toBeLessThan(ROWS / PAGE);
        await settle();
        mostAhead = Math.max(mostAhead, pagesRead - chunks);
      }
      expect(mostAhead).toBeLessThanOrEqual(1);
      expect(text.trim().split("\r\n")).toHaveLength(ROWS + 1);
      expect(chunks).toBe(ROWS / PAGE);
      expect(pagesRead).toBe(ROWS / PAGE + 1);
    } finally {
      restore();
    }
  });
});
