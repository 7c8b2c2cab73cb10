// `npm run doctor -- [--to ADDRESS] [--url URL]`: checks what a store needs to sell, one line
// each (decision 096); exit status 1 when something blocks selling. The database's checks come
// from the running server (it holds PGlite's DATA_DIR; scripts/store-client.ts), or from the
// database opened here, without migrating, when no server runs.
import { parseCommandLine, usageError } from "#agent/command-line.ts";
import { ConfigError, loadConfig } from "#server/config.ts";
import { formatCheck, verdict, type DoctorCheck } from "#server/domain/ops/doctor/check.ts";
import { runDoctor } from "#server/domain/ops/doctor/run.ts";
import type { storeChecksOffline } from "#server/domain/ops/doctor/store.ts";
import { loadEnvFile } from "./env-file.js";
import { askRunningServer, builtServer } from "./store-client.ts";

const usage = `Usage: npm run doctor -- [--to ADDRESS] [--url URL]
Checks the settings, the database and its migrations, mail (--to ADDRESS also sends a test message),
Stripe (key, live or test, the webhook endpoint), PUBLIC_URL, each VPN node, staff and backups,
and in live mode the books against Stripe's charges, refunds and disputes of the last 35 days:
one line each (one per difference of the books), ✓ or ✗ with the fix. Exit status 1 when
something blocks selling.
--url: the running app (default: where it recorded it listens, in DATA_DIR/vpn-admin.json; else http://127.0.0.1:$PORT).`;

async function main(): Promise<number> {
  const { values, positionals } = parseCommandLine(usage, process.argv.slice(2), {
    to: { type: "string" },
    url: { type: "string" },
  });
  if (positionals.length) usageError(`unexpected argument ${positionals[0]}`, usage);
  loadEnvFile();
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.log(
      formatCheck({
        name: "settings",
        ok: false,
        detail: error.issues.join("; "),
        fix: "see README, Settings",
      }),
    );
    return 1;
  }
  const url = values.url;
  const store = async (): Promise<DoctorCheck[]> => {
    const answer = await askRunningServer<{ checks: DoctorCheck[] }>(config, url, "/api/ops/doctor", {});
    if (answer) return answer.checks;
    const bundle = await builtServer<{ storeChecksOffline: typeof storeChecksOffline }>();
    return bundle.storeChecksOffline(config);
  };
  const checks = await runDoctor(config, { to: values.to, store });
  for (const check of checks) console.log(formatCheck(check));
  const { line, exitCode } = verdict(checks);
  console.log(line);
  return exitCode;
}

process.exit(await main());
