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
        (error as { fix?: string }).fix ?? "check DATABASE_URL (or DATA_DIR) and that PostgreSQL runs",
        true,
      ),
    ]);
  const [database, ...rest] = store;
  return withoutContradiction([
    settingsCheck(config),
    database!,
    await mailCheck(config, options.to),
    await stripeCheck(config),
    await publicUrlCheck(config),
    ...rest,
  ]);
}

/**
 * "sales ✓ checkout is open" beside "Selling is blocked" contradicts itself: while another check
 * blocks selling, the sales line says what still takes orders and names what blocks.
 */
export function withoutContradiction(checks: DoctorCheck[]): DoctorCheck[] {
  const blocking = checks.filter((check) => !check.ok && check.blocksSelling && check.name !== "sales");
  if (blocking.length === 0) return checks;
  const names = blocking.map((check) => check.name).join(", ");
  return checks.map((check) =>
    check.name === "sales" && check.ok
      ? fail(
          "sales",
          `a VPN server can take a device, but a sale cannot complete or work until ${names} ${blocking.length === 1 ? "is" : "are"} fixed`,
          `the fix on the ${names} line${blocking.length === 1 ? "" : "s"}`,
        )
      : check,
  );
}
