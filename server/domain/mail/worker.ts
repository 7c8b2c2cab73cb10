import type { Database } from "#server/db/client.ts";
import type { Logger } from "#server/logger.ts";
import type { Sealer } from "#server/secrets.ts";
import { composeEmail } from "./compose.ts";
import {
  claimDueEmails,
  markEmailFailed,
  markEmailSent,
  OUTBOX_LEASE_MS,
  renewEmailClaims,
  unsealStoredEmail,
} from "./outbox.ts";
import type { EmailSite } from "./templates/layout.tsx";
import type { MailTransport } from "./transport.ts";

export interface OutboxWorkerDeps {
  db: Database;
  sealer: Sealer;
  transport: MailTransport;
  logger: Logger;
  from: string;
  /** What the templates say about the site (brand, links, support address). */
  site: EmailSite;
}

/** Sends what is due; returns how many were sent. A failure only delays that message. */
export async function deliverDueEmails(
  deps: OutboxWorkerDeps,
  now = new Date(),
  batchSize = 20,
): Promise<number> {
  const batch = await claimDueEmails(deps.db, now, batchSize);
  if (batch.length === 0) return 0;
  // Claims are short (OUTBOX_LEASE_MS) so a dead process's are taken over soon; while this one
  // works through the batch it renews the claims it still holds.
  const held = new Set(batch.map((email) => email.id));
  const started = Date.now();
  const heartbeat = setInterval(() => {
    renewEmailClaims(deps.db, [...held], new Date(now.getTime() + Date.now() - started)).catch(
      (error: unknown) => deps.logger.warn({ err: error }, "could not renew the outbox claims"),
    );
  }, OUTBOX_LEASE_MS / 3);
  heartbeat.unref();
  let sent = 0;
  try {
    for (const email of batch) {
      try {
        // Rendered here, when it is sent: the transaction that queued it held no React work.
        const message = await composeEmail(deps.site, unsealStoredEmail(deps.sealer, email.sealedMessage));
        await deps.transport.send({ id: email.id, kind: email.kind, ...message }, deps.from);
        await markEmailSent(deps.db, email.id, new Date());
        sent += 1;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        deps.logger.warn(
          { outboxId: email.id, kind: email.kind, attempts: email.attempts + 1, reason },
          "e-mail not sent yet; will retry",
        );
        await markEmailFailed(deps.db, email, reason, new Date());
      }
      held.delete(email.id);
    }
  } finally {
    clearInterval(heartbeat);
  }
  return sent;
}

export interface OutboxWorker {
  /** Look for due mail now instead of at the next tick (called after a message is queued). */
  wake(): void;
  /** Resolves when the outbox has nothing due (used by tests and graceful shutdown). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export function startOutboxWorker(deps: OutboxWorkerDeps, intervalMs = 5_000): OutboxWorker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let again = false;

  const tick = async () => {
    try {
      while (!stopped) {
        again = false;
        const sent = await deliverDueEmails(deps);
        if (sent === 0 && !again) break;
      }
    } catch (error) {
      deps.logger.error({ err: error }, "outbox worker tick failed");
    }
  };

  const run = () => {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = tick().finally(() => {
      running = undefined;
      schedule();
    });
    return running;
  };

  const schedule = () => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, intervalMs);
    timer.unref();
  };

  schedule();
  return {
    wake: () => void run(),
    drain: async () => {
      await running;
      await run();
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      deps.transport.close();
    },
  };
}
