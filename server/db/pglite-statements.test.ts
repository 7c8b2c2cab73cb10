import { PGlite, types } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepPreparedStatements } from "./pglite-statements.ts";

const SCHEMA = `
  create table things (
    id serial primary key,
    name text not null unique,
    amount numeric(10, 2),
    big bigint,
    active boolean,
    seen_at timestamptz,
    born date,
    tags text[],
    scores int[],
    details jsonb,
    raw bytea
  )`;

// drizzle's PGlite driver keeps dates and intervals as PostgreSQL's text (identity parsers).
const asDrizzleDoes = {
  rowMode: "array" as const,
  parsers: { [types.TIMESTAMPTZ]: (value: string) => value, [types.DATE]: (value: string) => value },
};

async function keptStatements(client: PGlite): Promise<{ name: string; statement: string }[]> {
  const { rows } = await client.query<{ name: string; statement: string }>(
    "select name, statement from pg_prepared_statements where not from_sql order by prepare_time",
  );
  return rows;
}

describe("keepPreparedStatements", () => {
  let plain: PGlite;
  let kept: PGlite;

  beforeAll(async () => {
    plain = new PGlite();
    kept = keepPreparedStatements(new PGlite(), { maxStatements: 8 });
    for (const client of [plain, kept]) await client.exec(SCHEMA);
  });

  afterAll(async () => {
    await plain.close();
    await kept.close();
  });

  it("answers exactly what PGlite's own query answers, for every type the app sends and reads", async () => {
    const insert = `insert into things (name, amount, big, active, seen_at, born, tags, scores, details, raw)
      values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning *`;
    const rows = [
      [
        "first",
        "12.50",
        9_007_199_254_740_993n,
        true,
        new Date("2026-11-22T10:00:00.123Z"),
        "2026-01-31",
        ["a", "b,c", 'd"e'],
        [1, 2, 3],
        { plan: "pro", limit: 3, nested: [null, "x"] },
        new Uint8Array([0, 1, 254, 255]),
      ],
      ["second", null, null, false, null, null, [], null, null, null],
    ];
    const select = "select * from things where name like any($1) order by id";
    const update = "update things set active = not active where name like $1";
    // Each case runs twice on each database, the second time from the kept statement.
    const cases: [string, (repeat: number) => unknown[], typeof asDrizzleDoes | undefined][] = [
      [insert, (repeat) => [`first-${repeat}`, ...rows[0]!.slice(1)], undefined],
      [insert, (repeat) => [`second-${repeat}`, ...rows[1]!.slice(1)], asDrizzleDoes],
      [select, () => [["first%", "second%"]], undefined],
      [select, () => [["first%", "second%"]], asDrizzleDoes],
      [update, () => ["first%"], undefined],
      ["select count(*), now() > $1 as later from things", () => [new Date(0)], undefined],
    ];
    for (const [sql, params, options] of cases) {
      for (let repeat = 0; repeat < 2; repeat++) {
        const expected = await plain.query(sql, params(repeat), options);
        const actual = await kept.query(sql, params(repeat), options);
        expect(actual.rows).toEqual(expected.rows);
        expect(actual.fields).toEqual(expected.fields);
        expect(actual.affectedRows).toBe(expected.affectedRows);
      }
    }
    const [stored] = (
      await kept.query<{ raw: Uint8Array; details: unknown; tags: string[] }>(
        "select raw, details, tags from things where name = $1",
        ["first-1"],
      )
    ).rows;
    expect(stored).toEqual({ raw: rows[0]![9], details: rows[0]![8], tags: rows[0]![6] });
  });

  it("parses a statement once and runs every repeat from the kept one", async () => {
    const sql = "select id from things where name = $1";
    expect(keepPreparedStatements(kept)).toBe(kept); // a second call changes nothing
    for (const name of ["first-0", "second-0", "first-0"]) await kept.query(sql, [name]);
    expect((await keptStatements(kept)).filter((row) => row.statement === sql)).toHaveLength(1);
  });

  it("closes the least recently used statements beyond the limit", async () => {
    const texts = Array.from({ length: 12 }, (_, index) => `select ${index} as n, $1::text as tag`);
    for (const sql of texts)
      expect((await kept.query(sql, ["x"])).rows).toEqual([{ n: expect.any(Number), tag: "x" }]);
    const statements = (await keptStatements(kept)).map((row) => row.statement);
    // The limit (8), give or take the listing query itself; the newest are kept, the oldest closed.
    expect(statements.length).toBeLessThanOrEqual(9);
    expect(statements).toContain(texts[11]);
    expect(statements).not.toContain(texts[0]);
    expect((await kept.query(texts[0]!, ["again"])).rows).toEqual([{ n: 0, tag: "again" }]);
  });

  it("reports a failing statement with PostgreSQL's error, and runs it again afterwards", async () => {
    const insert = "insert into things (name) values ($1)";
    await kept.query(insert, ["unique-name"]);
    const failure = await kept.query(insert, ["unique-name"]).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "23505", constraint: "things_name_key" });
    await expect(kept.query("selec 1")).rejects.toMatchObject({ code: "42601" });
    expect((await kept.query(insert, ["another-name"])).affectedRows).toBe(1);
    // A taken key says nothing about the statement: it stays prepared, under the same name.
    const [before] = (await keptStatements(kept)).filter((row) => row.statement === insert);
    await expect(kept.query(insert, ["another-name"])).rejects.toMatchObject({ code: "23505" });
    expect((await keptStatements(kept)).filter((row) => row.statement === insert)).toEqual([before]);
  });

  it("prepares a statement anew when a table it reads changes shape", async () => {
    await kept.exec("create table reshaped (a int); insert into reshaped values (1)");
    const sql = "select * from reshaped";
    expect((await kept.query(sql)).rows).toEqual([{ a: 1 }]);
    await kept.exec("alter table reshaped add column b text default 'new'");
    expect((await kept.query(sql)).rows).toEqual([{ a: 1, b: "new" }]);
  });

  it("keeps PGlite's transactions: commit, rollback, and queries outside wait for the transaction", async () => {
    const order: string[] = [];
    const inside = kept.transaction(async (tx) => {
      await tx.query("insert into things (name) values ($1)", ["in-transaction"]);
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push("transaction done");
    });
    const outside = kept
      .query<{ count: number }>("select count(*)::int as count from things where name = $1", [
        "in-transaction",
      ])
      .then((result) => {
        order.push("outside query");
        return result.rows[0]!.count;
      });
    await inside;
    expect(await outside).toBe(1);
    expect(order).toEqual(["transaction done", "outside query"]);

    await expect(
      kept.transaction(async (tx) => {
        await tx.query("insert into things (name) values ($1)", ["rolled-back"]);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect((await kept.query("select 1 from things where name = $1", ["rolled-back"])).rows).toEqual([]);

    let leaked: Parameters<Parameters<PGlite["transaction"]>[0]>[0] | undefined;
    await kept.transaction(async (tx) => {
      leaked = tx;
    });
    expect(() => leaked!.query("select 1")).toThrow("Transaction is closed");
  });

  it("leaves a COPY from a blob to PGlite's own query", async () => {
    const result = await kept.query("copy things (name) from '/dev/blob'", [], {
      blob: new Blob(["from-a-blob\n"]),
    });
    expect(result.affectedRows).toBe(1);
    expect((await kept.query("select name from things where name = $1", ["from-a-blob"])).rows).toHaveLength(
      1,
    );
  });
});
