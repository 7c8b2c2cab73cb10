// The built app's server entry (build/server/index.js), as the benchmarks load it: in-process,
// the production bundle, without vitest. Build it first (scripts/build-if-stale.js).
import path from "node:path";
import type { DatabaseHandle } from "#server/db/client.ts";
import type { Config } from "#server/config.ts";
import type { AppServices } from "#server/services.ts";

export interface ServerBundle {
  loadConfig(env: Record<string, string | undefined>): Config;
  startServices(
    config: Config,
    options: { database: DatabaseHandle; backgroundJobs: boolean },
  ): Promise<{ services: AppServices; close(): Promise<void> }>;
  startServer(options: {
    config: Config;
    services?: { backgroundJobs?: boolean };
  }): Promise<{ url: string; services: AppServices; stop(): Promise<void> }>;
  createFetchHandler(services: AppServices): (request: Request, clientIp?: string) => Promise<Response>;
}

export async function loadServerBundle(): Promise<ServerBundle> {
  return (await import(path.resolve(import.meta.dirname, "../../build/server/index.js"))) as ServerBundle;
}
