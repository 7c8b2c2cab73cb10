// `npm test`: the whole suite (unit, integration, browser, tunnel), one runner, one closing line.
// The projects that run the production build rebuild it when stale (tests/support/global-setup.ts).
import { spawnSync } from "node:child_process";

const result = spawnSync("npx", ["vitest", "run", ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(result.status ?? 1);
