// Decision 138: the waiting-buyers rule reads its candidates from two flags that triggers keep
// (migration 0081), so a flag that went stale would hide a buyer who waits. Each way a row can
// gain or lose what its flag says is checked here, on both databases: a subscription written,
// moved to another session or deleted; a session written after its subscription; a slot-1 device
// written (alone and in a bulk insert), moved to another slot or deleted, and a second slot-1 row
// that keeps the flag when the first goes.
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { queryRows, type DatabaseHandle } from "#server/db/client.ts";
import { createTestDatabase, databaseKinds, ignoreTerminatedConnections } from "../../support/database.ts";

describe.each(databaseKinds)("the waiting-buyers flags on %s", (kind) => {
  let handle: DatabaseHandle | undefined;
  beforeEach(async () => {
    handle = await createTestDatabase(kind);
    ignoreTerminatedConnections(handle);
  });
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  const run = (statement: string) => handle!.db.execute(sql.raw(statement));
  const session = (id: string) =>
    run(`insert into checkout_sessions (id, provider, plan_id, amount_cents, status, paid_at)
         values ('${id}', 'test', 'pro-monthly', 799, 'paid', now())`);
  const subscription = (id: string, sessionId: string) =>
    run(`insert into subscriptions (id, plan_id, plan_type, device_limit, expires_at, checkout_session_id)
         values ('${id}', 'pro-monthly', 'pro_monthly', 3, now() + interval '30 days', '${sessionId}')`);
  const sessionFlag = async (id: string) =>
    (
      await queryRows<{ flag: boolean }>(
        handle!.db,
        sql`select has_subscription as flag from checkout_sessions where id = ${id}`,
      )
    )[0]?.flag;
  const slotOneFlag = async (id: string) =>
    (
      await queryRows<{ flag: boolean }>(
        handle!.db,
        sql`select has_slot_one as flag from subscriptions where id = ${id}::uuid`,
      )
    )[0]?.flag;
  let devices = 0;
  /** Revoked devices (no server needed) of `subscriptionId` in `slots`, in one insert statement. */
  const addDevices = (subscriptionId: string, slots: number[]) =>
    run(`insert into devices (subscription_id, slot, public_key, private_key_sealed, preshared_key_sealed,
                              address_index, ipv4, ipv6, download_token_hash, download_token_sealed, revoked_at)
         values ${slots
           .map((slot) => {
             const n = ++devices;
             return `('${subscriptionId}', ${slot}, 'key-${n}', 'sealed', 'sealed', ${n}, '10.9.0.${n}', 'fd09::${n}', 'token-${n}', 'sealed', now())`;
           })
           .join(", ")}`);

  const A = "00000000-0000-4000-8000-00000000000a";
  const B = "00000000-0000-4000-8000-00000000000b";

  it("a session's flag follows the subscription that names it", async () => {
    await session("cs_flag_1");
    await session("cs_flag_2");
    expect(await sessionFlag("cs_flag_1")).toBe(false);
    await subscription(A, "cs_flag_1");
    expect(await sessionFlag("cs_flag_1")).toBe(true);
    await run(`update subscriptions set checkout_session_id = 'cs_flag_2' where id = '${A}'`);
    expect(await sessionFlag("cs_flag_1")).toBe(false);
    expect(await sessionFlag("cs_flag_2")).toBe(true);
    // The app never writes the flag; a write that tries is corrected to what the tables say.
    await run(`update checkout_sessions set has_subscription = false where id = 'cs_flag_2'`);
    expect(await sessionFlag("cs_flag_2")).toBe(true);
    await run(`delete from subscriptions where id = '${A}'`);
    expect(await sessionFlag("cs_flag_2")).toBe(false);
  });

  it("a session written after its subscription starts flagged", async () => {
    await subscription(B, "cs_flag_late");
    await session("cs_flag_late");
    expect(await sessionFlag("cs_flag_late")).toBe(true);
  });

  it("a subscription's flag follows its slot-1 device rows, revoked ones included", async () => {
    await session("cs_flag_3");
    await subscription(A, "cs_flag_3");
    expect(await slotOneFlag(A)).toBe(false);
    await addDevices(A, [2]);
    expect(await slotOneFlag(A)).toBe(false);
    await addDevices(A, [1]);
    expect(await slotOneFlag(A)).toBe(true);
    await run(`update devices set slot = 3 where subscription_id = '${A}' and slot = 1`);
    expect(await slotOneFlag(A)).toBe(false);
    await run(`update devices set slot = 1 where subscription_id = '${A}' and slot = 2`);
    expect(await slotOneFlag(A)).toBe(true);
    // Two slot-1 rows (one revoked, one its replacement): deleting one leaves the other.
    await addDevices(A, [1]);
    await run(
      `delete from devices where id = (select id from devices where subscription_id = '${A}' and slot = 1 limit 1)`,
    );
    expect(await slotOneFlag(A)).toBe(true);
    await run(`delete from devices where subscription_id = '${A}' and slot = 1`);
    expect(await slotOneFlag(A)).toBe(false);
  });

  it("a bulk insert of devices flags each subscription it gives slot 1", async () => {
    await session("cs_flag_4");
    await session("cs_flag_5");
    await subscription(A, "cs_flag_4");
    await subscription(B, "cs_flag_5");
    await run(`insert into devices (subscription_id, slot, public_key, private_key_sealed, preshared_key_sealed,
                                    address_index, ipv4, ipv6, download_token_hash, download_token_sealed, revoked_at)
               select s, 1, 'bulk-key-' || n, 'sealed', 'sealed', n, '10.8.0.' || n, 'fd08::' || n,
                      'bulk-token-' || n, 'sealed', now()
               from unnest(array['${A}', '${B}']::uuid[]) with ordinality as t(s, n)`);
    expect(await slotOneFlag(A)).toBe(true);
    expect(await slotOneFlag(B)).toBe(true);
  });
});
