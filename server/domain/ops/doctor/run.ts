import type { Config } from "#server/config.ts";
import { fail, type DoctorCheck } from "./check.ts";
import { mailCheck, publicUrlCheck, settingsCheck, stripeCheck } from "./outside.ts";

/**
 * Every check, in the guide's order (docs/operating.md, first sale checklist). `store` answers
 * the database's checks: from the running server, or from a database the doctor opened itself.
 */
export async function runDoctor(
  config: Config,
  options: { to?: string; store: () => Promise<DoctorCheck[]> },
): Promise<DoctorCheck[]> {
  const store = await options
    .store()
    .catch((error: unknown) => [
      fail(
        "database",
        `cannot be read: ${(error as Error).message.split("\n")[0]!.slice(0, 200)}`,
        "check DATABASE_URL (or DATA_DIR) and that PostgreSQL runs",
        true,
      ),
    ]);
  const [database, ...rest] = store;
  return [
    settingsCheck(config),
    database!,
    await mailCheck(config, options.to),
    await stripeCheck(config),
    await publicUrlCheck(config),
    ...rest,
  ];
}
