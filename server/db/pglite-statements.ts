import { messages, protocol, type PGlite, type Results, type Transaction } from "@electric-sql/pglite";

type QueryOptions = Parameters<PGlite["query"]>[2];
type Parser = (text: string, typeId: number) => unknown;

interface PreparedStatement {
  name: string;
  parameterTypes: number[];
  /** What each row holds; absent for statements that return no rows. */
  fields: { name: string; dataTypeID: number }[];
}

/** PGlite's own locking, which its `query` uses: public on the instance, absent from its types. */
interface PGliteLocks {
  _checkReady(): Promise<void>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
}

const isCachedPlanChanged = (error: unknown) =>
  error instanceof messages.DatabaseError &&
  error.code === "0A000" &&
  error.message === "cached plan must not change result type";
/**
 * Errors that say the statement no longer fits the database (SQLSTATE class 26: no such
 * statement; 42: a table or column it names is gone; 0A000: its result changed shape), as
 * opposed to its data (23: a unique key taken) or its transaction (25: aborted), which leave it valid.
 */
const statementFailed = (error: unknown) => {
  const code = error instanceof messages.DatabaseError ? (error.code ?? "") : "";
  return code.startsWith("26") || code.startsWith("42") || code === "0A000";
};

const keeping = new WeakSet<PGlite>();

const COUNTED_COMMANDS = new Set(["INSERT", "UPDATE", "DELETE", "COPY", "MERGE"]);

function concat(parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

/**
 * Makes PGlite keep a prepared statement per SQL text, as node-postgres does with named
 * statements (decision 057). PGlite's `query` parses, describes and plans every statement afresh
 * in six trips into the engine; a kept statement runs as Bind + Execute + Sync in one trip, and
 * PostgreSQL's plan cache replans only while custom plans beat the generic one. The least
 * recently used statements beyond `maxStatements` are closed: SQL texts that differ only in a
 * batch's size are distinct statements.
 *
 * Replaces `query` and `transaction` (whose `tx.query`) on the instance, keeping PGlite's locking
 * and results; `exec`, `listen` and the rest stay PGlite's own. A query with a `blob` option
 * (COPY from /dev/blob) takes PGlite's own path; a COPY to /dev/blob would lose its blob here.
 */
export function keepPreparedStatements(client: PGlite, { maxStatements = 500 } = {}): PGlite {
  // Once per client: two caches would both name their first statement nl_1.
  if (keeping.has(client)) return client;
  keeping.add(client);
  const locks = client as unknown as PGliteLocks;
  const statements = new Map<string, PreparedStatement>();
  const closing: string[] = [];
  let lastName = 0;
  const pgliteQuery = client.query.bind(client);
  const pgliteTransaction = client.transaction.bind(client);

  async function prepare(sql: string, options: QueryOptions): Promise<PreparedStatement> {
    const name = `nl_${++lastName}`;
    const { messages: described } = await client.execProtocol(
      concat([
        protocol.serialize.parse({ name, text: sql, types: options?.paramTypes }),
        protocol.serialize.describe({ type: "S", name }),
        protocol.serialize.sync(),
      ]),
      { syncToFs: false },
    );
    let parameterTypes: number[] = [];
    let fields: PreparedStatement["fields"] = [];
    for (const message of described) {
      if (message instanceof messages.ParameterDescriptionMessage) parameterTypes = message.dataTypeIDs;
      if (message instanceof messages.RowDescriptionMessage)
        fields = message.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID }));
    }
    return { name, parameterTypes, fields };
  }

  function serializeParameter(value: unknown, type: number | undefined, options: QueryOptions) {
    if (value === null || value === undefined) return null;
    const serialize =
      type === undefined ? undefined : (options?.serializers?.[type] ?? client.serializers[type]);
    return serialize ? serialize(value) : String(value);
  }

  /** PGlite's result shape, parsing each column with the caller's parser or PGlite's. */
  function resultOf<T>(
    statement: PreparedStatement,
    answer: messages.BackendMessage[],
    options: QueryOptions,
  ) {
    const parsers: (Parser | undefined)[] = statement.fields.map(
      ({ dataTypeID }) =>
        (options?.parsers?.[dataTypeID] ?? client.parsers[dataTypeID]) as Parser | undefined,
    );
    const parseRow = (values: (string | null)[]) =>
      values.map((value, index) => {
        const parser = parsers[index];
        return value === null || !parser ? value : parser(value, statement.fields[index]!.dataTypeID);
      });
    const rows: unknown[] = [];
    let command: string | undefined;
    let affectedRows = 0;
    let rowCount: number | undefined;
    for (const message of answer) {
      if (message instanceof messages.DataRowMessage) {
        const values = parseRow(message.fields);
        rows.push(
          options?.rowMode === "array"
            ? values
            : Object.fromEntries(statement.fields.map(({ name }, index) => [name, values[index]])),
        );
      } else if (message instanceof messages.CommandCompleteMessage) {
        const parts = message.text.split(" ");
        command = parts[0];
        const count = Number.parseInt(parts.at(-1)!, 10);
        if (!Number.isNaN(count)) rowCount = count;
        if (COUNTED_COMMANDS.has(command!) && rowCount !== undefined) affectedRows += rowCount;
      }
    }
    return { rows, fields: statement.fields, command, affectedRows, rowCount } as Results<T>;
  }

  /** One statement; the caller holds PGlite's query lock. */
  async function run<T>(sql: string, params: unknown[], options: QueryOptions): Promise<Results<T>> {
    const key = options?.paramTypes ? `${options.paramTypes.join(",")}\n${sql}` : sql;
    try {
      return await runKept<T>(key, sql, params, options);
    } catch (error) {
      // A table the statement reads was altered since it was prepared. Outside a transaction
      // nothing has happened yet: run it again, prepared anew. Inside one, the caller decides.
      if (!isCachedPlanChanged(error) || client.isInTransaction()) throw error;
      return runKept<T>(key, sql, params, options);
    }
  }

  async function runKept<T>(
    key: string,
    sql: string,
    params: unknown[],
    options: QueryOptions,
  ): Promise<Results<T>> {
    let statement = statements.get(key);
    if (statement)
      statements.delete(key); // re-inserted below: the map's order is least recently used first
    else statement = await prepare(sql, options);
    statements.set(key, statement);
    for (const [oldest, { name }] of statements) {
      if (statements.size <= maxStatements) break;
      statements.delete(oldest);
      closing.push(name);
    }
    const values = params.map((value, index) =>
      serializeParameter(value, statement.parameterTypes[index], options),
    );
    let answer;
    try {
      ({ messages: answer } = await client.execProtocol(
        concat([
          ...closing.splice(0).map((name) => protocol.serialize.close({ type: "S", name })),
          protocol.serialize.bind({ statement: statement.name, values }),
          protocol.serialize.execute({}),
          protocol.serialize.sync(),
        ]),
        { syncToFs: false },
      ));
    } catch (error) {
      // A failure of the statement itself (not of its data or its transaction): prepared anew next time.
      if (statementFailed(error) && statements.get(key) === statement) {
        statements.delete(key);
        closing.push(statement.name);
      }
      throw error;
    }
    if (!client.isInTransaction()) await client.syncToFs();
    return resultOf<T>(statement, answer, options);
  }

  const runAlone = <T>(sql: string, params: unknown[] = [], options?: QueryOptions) =>
    client.runExclusive(() => run<T>(sql, params, options));

  client.query = async <T>(sql: string, params?: unknown[], options?: QueryOptions) => {
    if (options?.blob) return pgliteQuery<T>(sql, params, options);
    await locks._checkReady(); // as PGlite's query does, so calls keep their order with transaction()
    return locks._runExclusiveTransaction(() => runAlone<T>(sql, params, options));
  };

  client.transaction = <T>(callback: (tx: Transaction) => Promise<T>) =>
    pgliteTransaction((tx) =>
      callback({
        sql: tx.sql,
        exec: tx.exec,
        rollback: tx.rollback,
        listen: tx.listen,
        query: <R>(sql: string, params?: unknown[], options?: QueryOptions) => {
          if (options?.blob) return tx.query<R>(sql, params, options);
          if (tx.closed) throw new Error("Transaction is closed");
          return runAlone<R>(sql, params, options);
        },
        get closed() {
          return tx.closed;
        },
      }),
    );
  return client;
}
