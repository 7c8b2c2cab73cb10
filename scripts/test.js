// `npm test`: the whole suite (unit, integration, browser, tunnel), one runner, one closing line.
import { spawnSync } from "node:child_process";
import { buildIfStale } from "./build-if-stale.js";

buildIfStale();
const result = spawnSync("npx", ["vitest", "run", ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(result.status ?? 1);
