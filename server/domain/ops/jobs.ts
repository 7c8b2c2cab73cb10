import type { Logger } from "#server/logger.ts";

export interface RepeatingJob {
  stop(): Promise<void>;
}

/**
 * Runs `run` now and then every `intervalMs`, never two at once; a failed run is logged and
 * tried again at the next tick. A run that counted anything is logged with its counts. `stop`
 * waits for a run in progress.
 */
export function startRepeatingJob(
  name: string,
  run: () => Promise<object>,
  deps: { logger: Logger; intervalMs: number },
): RepeatingJob {
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped || running) return;
    running = run()
      .then((result) => {
        if (Object.values(result).some((count) => typeof count === "number" && count > 0))
          deps.logger.info(result, name);
      })
      .catch((error: unknown) => deps.logger.error({ err: error }, `${name} failed`))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, deps.intervalMs);
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
