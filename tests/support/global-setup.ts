import { buildIfStale } from "../../scripts/build-if-stale.js";

/**
 * The global setup of the projects that run the production build (browser, tunnel, and the
 * integration files listed in vitest.config.ts): build it first when sources changed. Vitest
 * runs a project's global setup only when that project has tests queued.
 */
export default function setup() {
  // A run that only checks files skip (postgres-optional.test.ts) needs no build of its own.
  if (process.env.NAIJALINK_SKIP_BUILD !== "1") buildIfStale();
}
