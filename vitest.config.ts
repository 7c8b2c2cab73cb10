import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = {
  "#agent": fileURLToPath(new URL("./agent", import.meta.url)),
  "#app": fileURLToPath(new URL("./app", import.meta.url)),
  "#core": fileURLToPath(new URL("./core", import.meta.url)),
  "#server": fileURLToPath(new URL("./server", import.meta.url)),
};

// Generous: the first test of a worker pays for PGlite's initdb, slow on a busy 2-core machine.
const timeouts = { testTimeout: 90_000, hookTimeout: 120_000 };

/**
 * Where the app comes from (tests/support/app.ts). "source": the app's own Vite config (its
 * React Router and enhancement-script plugins), so `#server/app.ts` loads
 * `virtual:react-router/server-build`, the route table, from source; one project only, as the
 * plugin writes .react-router/types when it starts. "build": the production build, rebuilt
 * first when a source is newer (vitest runs a project's global setup only when it has tests).
 */
const fromSource = { extends: "./vite.config.ts", provide: { appFrom: "source" as const } };
/** Every project that makes test databases: the run's migrated templates (template-setup.ts). */
const templates = "./tests/support/template-setup.ts";
const fromBuild = {
  resolve: { alias },
  provide: { appFrom: "build" as const },
  globalSetup: ["./tests/support/global-setup.ts", templates],
};

/**
 * Vitest starts its workers with Node `--conditions` taken from the SSR resolve conditions, which
 * the React Router plugin gives Vite's "module". Node then honours it in `require()` too, and
 * prom-client's `require("@opentelemetry/api")` gets that package's bundler-only ESM build, which
 * Node cannot load. Node itself never uses "module"; Vite's own resolution is left as it is.
 */
const workersWithNodeConditions = {
  name: "workers-with-node-conditions",
  configResolved(config: { ssr: { resolve?: { conditions?: readonly string[] } } }) {
    const resolve = config.ssr.resolve;
    if (resolve?.conditions) resolve.conditions = resolve.conditions.filter((name) => name !== "module");
  },
};

/** Integration files about what only the build serves: its assets, `node server.js`. */
const BUILD_TESTS = [
  "tests/integration/site/static-pages.test.ts",
  "tests/integration/ops/startup.test.ts",
  "tests/integration/ops/multi-process.test.ts",
  "tests/integration/ops/calm-start.test.ts",
  "tests/integration/ops/server-build.test.ts",
];

export default defineConfig({
  resolve: { alias },
  test: {
    reporters: ["default", "./tests/support/summary-reporter.ts"],
    maxWorkers: 2,
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: [
            "app/**/*.test.{ts,tsx}",
            "core/**/*.test.ts",
            "server/**/*.test.ts",
            "agent/**/*.test.ts",
          ],
          ...timeouts,
        },
      },
      {
        extends: fromSource.extends,
        plugins: [workersWithNodeConditions],
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          exclude: BUILD_TESTS,
          provide: fromSource.provide,
          globalSetup: [templates],
          isolate: false,
          // The root route links its stylesheet by URL (`./app.css?url`), as in a build.
          css: true,
          ...timeouts,
        },
      },
      {
        resolve: fromBuild.resolve,
        test: {
          name: "integration-build",
          include: BUILD_TESTS,
          provide: fromBuild.provide,
          globalSetup: fromBuild.globalSetup,
          ...timeouts,
        },
      },
      {
        resolve: fromBuild.resolve,
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          provide: fromBuild.provide,
          globalSetup: fromBuild.globalSetup,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: fromBuild.resolve,
        test: {
          name: "tunnel",
          include: ["tests/tunnel/**/*.test.ts"],
          provide: fromBuild.provide,
          globalSetup: fromBuild.globalSetup,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
