import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "#server/db/client.ts";

/** Tables that change on reading (sessions, rate-limit counters) are left out of "changed nothing". */
export const VOLATILE_TABLES = /session|rate_limit|verification/;

/** Each database's one digest statement: its tables do not change while a test file runs. */
const digestStatements = new WeakMap<Executor, Promise<string | null>>();

async function digestStatement(executor: Executor): Promise<string | null> {
  const tables = await queryRows<{ name: string }>(
    executor,
    sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  );
  const digests = tables
    .map(({ name }) => name)
    .filter((name) => !VOLATILE_TABLES.test(name))
    .map(
      (name) =>
        `select '${name}' as name, (select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) from "${name}" t) as digest`,
    );
  return digests.length > 0 ? digests.join(" union all ") : null;
}

/**
 * A digest of every row of every table (volatile ones aside), to prove a refused request changed
 * nothing. One statement for all tables: the fuzz test takes one after each of thousands of requests.
 */
export async function tableDigests(executor: Executor): Promise<Record<string, string>> {
  let statement = digestStatements.get(executor);
  if (!statement) digestStatements.set(executor, (statement = digestStatement(executor)));
  const text = await statement;
  if (!text) return {};
  const rows = await queryRows<{ name: string; digest: string | null }>(executor, sql.raw(text));
  return Object.fromEntries(rows.map((row) => [row.name, row.digest ?? ""]));
}
