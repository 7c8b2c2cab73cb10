import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = {
  "#agent": fileURLToPath(new URL("./agent", import.meta.url)),
  "#app": fileURLToPath(new URL("./app", import.meta.url)),
  "#server": fileURLToPath(new URL("./server", import.meta.url)),
};

export default defineConfig({
  resolve: { alias },
  test: {
    reporters: ["default", "./tests/support/summary-reporter.ts"],
    maxWorkers: 2,
    globalSetup: ["./tests/support/global-setup.ts"],
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: [
            "app/**/*.test.{ts,tsx}",
            "server/**/*.test.ts",
            "agent/**/*.test.ts",
            "tests/integration/**/*.test.ts",
          ],
          // Generous: the first test of a worker pays for PGlite's initdb, slow on a busy 2-core machine.
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "tunnel",
          include: ["tests/tunnel/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
