import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "#server/db/client.ts";

/** Tables that change on reading (sessions, rate-limit counters) are left out of "changed nothing". */
export const VOLATILE_TABLES = /session|rate_limit|verification/;

/** A digest of every row of every table (volatile ones aside), to prove a refused request changed nothing. */
export async function tableDigests(executor: Executor): Promise<Record<string, string>> {
  const tables = await queryRows<{ name: string }>(
    executor,
    sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  );
  const result: Record<string, string> = {};
  for (const { name } of tables) {
    if (VOLATILE_TABLES.test(name)) continue;
    const [row] = await queryRows<{ digest: string | null }>(
      executor,
      sql.raw(
        `select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from "${name}" t`,
      ),
    );
    result[name] = row?.digest ?? "";
  }
  return result;
}
