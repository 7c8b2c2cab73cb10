import { buildIfStale } from "../../scripts/build-if-stale.js";

/**
 * The global setup of the projects that run the production build (browser, tunnel, and the
 * integration files listed in vitest.config.ts): build it first when sources changed. Vitest
 * runs a project's global setup only when that project has tests queued.
 */
export default function setup() {
  buildIfStale();
}
