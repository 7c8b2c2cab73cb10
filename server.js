// Starts NaijaLink: the built server in production, Vite's dev server in development.
import { loadEnvFile } from "./scripts/env-file.js";

// Settings: the environment first, then .env in the working directory (README "Settings").
const envFile = loadEnvFile();
const development = process.env.NODE_ENV === "development";
// React and Express pick their fast production paths from this; it must be set before they load.
process.env.NODE_ENV ??= "production";

async function main() {
  let entry;
  let viteDevServer;
  if (development) {
    const vite = await import("vite");
    viteDevServer = await vite.createServer({ server: { middlewareMode: true }, appType: "custom" });
    entry = await viteDevServer.ssrLoadModule("./server/app.ts");
  } else {
    entry = await import("./build/server/index.js");
  }

  let config;
  try {
    config = entry.loadConfig();
  } catch (error) {
    if (error instanceof entry.ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  const running = await entry.startServer({ config, viteDevServer });
  // The one block a person starting the store reads; the log lines above are for machines.
  process.stdout.write(entry.startupSummary(running, envFile));
  for (const signal of ["SIGTERM", "SIGINT"]) {
    process.once(signal, async () => {
      running.services.logger.info({ signal }, "shutting down");
      await running.stop();
      process.exit(0);
    });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
