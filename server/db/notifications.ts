import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import type { Database, DatabaseKind } from "./client.ts";

export interface NotificationHandlers {
  /** A NOTIFY on the channel, committed by any session (any process, on PostgreSQL). */
  onNotify(payload: string): void;
  /**
   * The listening connection was lost and is back: notifications sent meanwhile were missed,
   * so whoever waits should look again.
   */
  onResumed(): void;
  onError(error: Error): void;
}

export interface NotificationListener {
  close(): Promise<void>;
}

const MAX_RECONNECT_DELAY_MS = 30_000;

/**
 * LISTENs on `channel`. On PGlite (one in-process session) through its own `listen`; on
 * PostgreSQL through a dedicated client of its own (a pooled connection would drop LISTEN when
 * returned), reconnecting with backoff when the connection is lost.
 */
export async function listenForNotifications(
  db: Database,
  kind: DatabaseKind,
  channel: string,
  handlers: NotificationHandlers,
): Promise<NotificationListener> {
  const client = (db as unknown as { $client: PGlite | pg.Pool }).$client;
  if (kind === "pglite") {
    const unlisten = await (client as PGlite).listen(channel, handlers.onNotify);
    return {
      close: async () => {
        if (!(client as PGlite).closed) await unlisten();
      },
    };
  }
  const options = (client as pg.Pool).options;
  let closed = false;
  let connection: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;

  const connect = async (): Promise<void> => {
    const next = new pg.Client(options);
    next.on("notification", (message) => {
      if (message.channel === channel) handlers.onNotify(message.payload ?? "");
    });
    next.on("error", (error) => {
      handlers.onError(error);
      lost(next);
    });
    next.on("end", () => lost(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    if (closed) await next.end().catch(() => undefined);
    else connection = next;
  };
  const lost = (which: pg.Client) => {
    if (closed || connection !== which) return;
    connection = undefined;
    which.end().catch(() => undefined);
    schedule();
  };
  const schedule = () => {
    failures += 1;
    const delay = Math.min(250 * 2 ** Math.min(failures, 7), MAX_RECONNECT_DELAY_MS);
    retry = setTimeout(() => {
      connect().then(
        () => {
          failures = 0;
          handlers.onResumed();
        },
        (error: Error) => {
          handlers.onError(error);
          if (!closed) schedule();
        },
      );
    }, delay);
    retry.unref();
  };

  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await connection?.end().catch(() => undefined);
    },
  };
}
