// The digest the "a refused request changes nothing" tests compare (fuzz, authorisation, webhooks):
// one statement over every table, so it must still see a change in any one of them.
import { afterAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client.ts";
import { contactMessages, rateLimit } from "#server/db/schema/index.ts";
import { createTestDatabase } from "../../support/database.ts";
import { tableDigests } from "../../support/table-digest.ts";

describe("table digests", () => {
  let handle: DatabaseHandle | undefined;
  afterAll(async () => {
    await handle?.close();
  });

  it("cover every table, change for the one table written and for no other, and leave out the volatile ones", async () => {
    handle = await createTestDatabase("pglite");
    const before = await tableDigests(handle.db);
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining(["contact_messages", "subscriptions", "devices"]),
    );
    expect(Object.keys(before).some((table) => /session|rate_limit|verification/.test(table))).toBe(false);

    await handle.db
      .insert(contactMessages)
      .values({ name: "Ada", email: "ada@example.com", subject: "Hello", message: "A row" });
    await handle.db
      .insert(rateLimit)
      .values({ id: "digest-test", key: "digest-test", count: 1, lastRequest: Date.now() });
    const after = await tableDigests(handle.db);
    const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
    expect(changed).toEqual(["contact_messages"]);
  });
});
