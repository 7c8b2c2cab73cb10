import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "#server/db/client.ts";
import { jobTicks } from "#server/db/schema/index.ts";
import type { Logger } from "#server/logger.ts";

export interface RepeatingJob {
  stop(): Promise<void>;
}

/**
 * Claims the tick of `job` that `now` falls in (ticks are `intervalMs` long, counted from the
 * epoch): true for the one caller that moves the job on to it, false for every other process,
 * or a second call, in the same tick (decision 081). A process whose clock lags can never claim
 * a tick already run; one whose clock runs ahead only moves the runs earlier.
 */
export async function claimJobTick(
  executor: Executor,
  job: string,
  intervalMs: number,
  now = new Date(),
): Promise<boolean> {
  const tick = Math.floor(now.getTime() / intervalMs);
  const claimed = await queryRows<{ tick: number }>(
    executor,
    sql`insert into ${jobTicks} as t (job, tick) values (${job}, ${tick})
      on conflict (job) do update set tick = excluded.tick, ran_at = now() where t.tick < excluded.tick
      returning tick`,
  );
  return claimed.length > 0;
}

/**
 * Runs `run` now and then every `intervalMs`, never two at once; a failed run is logged and
 * tried again at the next tick. A run that counted anything is logged with its counts. `stop`
 * waits for a run in progress.
 *
 * With `shared`, every app process on the database runs the job and each tick runs in one of
 * them: the timer fires twice a tick (so no process's drift skips one) and a run starts only
 * after `claimJobTick` said this process has the tick.
 */
export function startRepeatingJob(
  name: string,
  run: () => Promise<object>,
  deps: { logger: Logger; intervalMs: number; shared?: { db: Executor; job: string } },
): RepeatingJob {
  let running: Promise<void> | undefined;
  let stopped = false;
  const { shared } = deps;
  const claim = () => (shared ? claimJobTick(shared.db, shared.job, deps.intervalMs) : Promise.resolve(true));
  const tick = () => {
    if (stopped || running) return;
    running = claim()
      .then((mine) => (mine ? run() : {}))
      .then((result) => {
        if (Object.values(result).some((count) => typeof count === "number" && count > 0))
          deps.logger.info(result, name);
      })
      .catch((error: unknown) => deps.logger.error({ err: error }, `${name} failed`))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, shared ? deps.intervalMs / 2 : deps.intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
