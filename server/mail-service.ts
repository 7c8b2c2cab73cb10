// `services.mail`: e-mails queued in the outbox and the worker that sends them.
import type { Config } from "./config.ts";
import type { Database, Executor } from "./db/client.ts";
import type { EmailRequest } from "./domain/mail/email-data.ts";
import { enqueueEmail } from "./domain/mail/outbox.ts";
import type { MailTransport } from "./domain/mail/transport.ts";
import { deliverDueEmails, startOutboxWorker } from "./domain/mail/worker.ts";
import type { Logger } from "./logger.ts";
import type { Sealer } from "./secrets.ts";

export interface MailService {
  from: string;
  transport: MailTransport;
  /**
   * Queue inside the caller's transaction (a template's name and data; the worker renders it
   * when it sends); call `wake()` after it commits.
   */
  enqueue(executor: Executor, email: EmailRequest): Promise<string>;
  /**
   * Composes and queues an e-mail after the caller has answered, for answers whose timing must
   * not tell whether one was sent (`compose` answers null for "none"). Failures are logged.
   */
  enqueueDetached(kind: string, compose: () => Promise<EmailRequest | null>): void;
  /** Resolves once every detached e-mail is queued (shutdown and tests wait on it). */
  detachedSettled(): Promise<void>;
  wake(): void;
  drain(): Promise<void>;
}

/** The mail service, and with `backgroundJobs` the outbox worker sending from it; `stop` ends both. */
export function startMailService(deps: {
  db: Database;
  sealer: Sealer;
  transport: MailTransport;
  logger: Logger;
  config: Config;
  backgroundJobs: boolean;
}): { mail: MailService; stop(): Promise<void> } {
  const { db, sealer, transport, logger, config } = deps;
  const from = config.MAIL_FROM ?? `${config.BRAND_NAME} <${config.SUPPORT_EMAIL}>`;
  const workerDeps = { db, sealer, transport, logger, from, site: config };
  const worker = deps.backgroundJobs ? startOutboxWorker(workerDeps) : undefined;
  const detached = new Set<Promise<void>>();
  const mail: MailService = {
    from,
    transport,
    enqueue: (executor, email) => enqueueEmail(executor, sealer, email),
    enqueueDetached(kind, compose) {
      const task: Promise<void> = (async () => {
        const email = await compose();
        if (!email) return;
        await enqueueEmail(db, sealer, email);
        worker?.wake();
      })()
        // The error of a failed insert quotes its parameters: only its class goes to the log.
        .catch((error: unknown) =>
          logger.error(
            { kind, error: error instanceof Error ? error.name : typeof error },
            "e-mail not queued",
          ),
        )
        .finally(() => detached.delete(task));
      detached.add(task);
    },
    async detachedSettled() {
      while (detached.size) await Promise.allSettled([...detached]);
    },
    wake: () => worker?.wake(),
    drain: async () => {
      if (worker) return worker.drain();
      while ((await deliverDueEmails(workerDeps)) > 0);
    },
  };
  return {
    mail,
    async stop() {
      await mail.detachedSettled();
      await worker?.stop();
    },
  };
}
