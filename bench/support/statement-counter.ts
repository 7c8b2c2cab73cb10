// Counts the SQL statements drizzle sends while `recording` runs, through drizzle's own logger
// (server/db/client.ts takes one). On PostgreSQL drizzle sends `begin` and `commit` as statements,
// so transactions and the statements inside them are counted too; PGlite opens its transactions
// itself, unseen by the logger, so there only the total is known.
import type { Logger } from "drizzle-orm";

export interface StatementCount {
  statements: number;
  transactions: number | null;
  insideTransactions: number | null;
  /** Each statement's first words, in order (`*` marks one inside a transaction). */
  log: string[];
}

export class StatementCounter implements Logger {
  #active = false;
  #seesTransactions: boolean;
  #inside = false;
  #count: StatementCount = { statements: 0, transactions: 0, insideTransactions: 0, log: [] };

  constructor(seesTransactions: boolean) {
    this.#seesTransactions = seesTransactions;
  }

  logQuery(query: string): void {
    if (!this.#active) return;
    const text = query.trim().toLowerCase();
    if (text.startsWith("begin")) {
      this.#inside = true;
      this.#count.transactions! += 1;
      return;
    }
    if (text === "commit" || text === "rollback") {
      this.#inside = false;
      return;
    }
    this.#count.statements += 1;
    if (this.#inside) this.#count.insideTransactions! += 1;
    this.#count.log.push(`${this.#inside ? "* " : "  "}${query.replace(/\s+/g, " ").slice(0, 110)}`);
  }

  /** Counts what `work` sends; nothing else may use the database meanwhile. */
  async recording(work: () => Promise<unknown>): Promise<StatementCount> {
    this.#count = { statements: 0, transactions: 0, insideTransactions: 0, log: [] };
    this.#active = true;
    try {
      await work();
    } finally {
      this.#active = false;
    }
    return this.#seesTransactions
      ? this.#count
      : { ...this.#count, transactions: null, insideTransactions: null };
  }
}
