// The app against a test database, in-process (createTestApp: a Request in, a Response out) or
// as the real HTTP server (startTestServer). Each vitest project says where the app comes from
// (`provide: { appFrom }`, vitest.config.ts):
// - "source": tests/integration, with the app's own Vite config, so a test sees every edit at
//   once and shares module instances with the app;
// - "build": the production build, for browsers and for what only the build serves (its
//   assets, `node server.js`). Those projects rebuild a stale build first
//   (tests/support/global-setup.ts), and loading refuses a stale one.
import crypto from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { inject } from "vitest";
import type { DatabaseHandle, DatabaseKind } from "#server/db/client.ts";
import type { Config } from "#server/config.ts";
import type { AppServices } from "#server/services.ts";
import type { MailTransport } from "#server/domain/mail/transport.ts";
import { createLogger } from "#server/logger.ts";
import { buildIsStale } from "../../scripts/build-if-stale.js";
import { createTestDatabase } from "./database.ts";

interface ServerBundle {
  loadConfig(env: Record<string, string | undefined>): Config;
  startServices(
    config: Config,
    options: {
      database?: DatabaseHandle;
      logger?: ReturnType<typeof createLogger>;
      backgroundJobs?: boolean;
      transport?: MailTransport;
    },
  ): Promise<{ services: AppServices; close(): Promise<void> }>;
  createFetchHandler(services: AppServices): (request: Request, clientIp?: string) => Promise<Response>;
  startServer(options: {
    config: Config;
    services?: {
      database?: DatabaseHandle;
      logger?: ReturnType<typeof createLogger>;
      backgroundJobs?: boolean;
      transport?: MailTransport;
    };
  }): Promise<{ url: string; services: AppServices; stop(): Promise<void> }>;
}

declare module "vitest" {
  export interface ProvidedContext {
    appFrom: "source" | "build";
  }
}

export const BUILD_ENTRY = path.resolve(import.meta.dirname, "../../build/server/index.js");

/** The production build's server entry; never a build older than the sources. */
async function loadServerBundle(): Promise<ServerBundle> {
  if (buildIsStale()) {
    throw new Error(
      "build/ is older than the sources: run this test in a vitest project whose globalSetup rebuilds it (vitest.config.ts)",
    );
  }
  return (await import(/* @vite-ignore */ BUILD_ENTRY)) as ServerBundle;
}

/**
 * The server entry from source. Imported on call: `#server/app.ts` needs the React Router Vite
 * plugin (its `virtual:react-router/server-build`), which only the "source" projects load.
 */
async function loadServerSource(): Promise<ServerBundle> {
  return import("#server/app.ts");
}

/** The server entry this project runs. */
export function loadServer(): Promise<ServerBundle> {
  return inject("appFrom") === "source" ? loadServerSource() : loadServerBundle();
}

export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString("base64");

export async function makeDataDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), "naijalink-test-"));
}

export function testEnv(dataDir: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: "test",
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    PUBLIC_URL: "http://localhost:3000",
    LOG_LEVEL: "info",
    SEED_SAMPLE_CONTENT: "false",
    CONFIG_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    BETTER_AUTH_SECRET: "test-secret-test-secret-test-secret-0123456789",
    ...overrides,
  };
}

/** Every log line the app wrote, as parsed JSON and as raw text (to look for leaked secrets). */
export class CapturedLog {
  readonly lines: string[] = [];
  readonly stream = new Writable({
    write: (chunk, _encoding, callback) => {
      this.lines.push(...String(chunk).split("\n").filter(Boolean));
      callback();
    },
  });
  get text() {
    return this.lines.join("\n");
  }
  entries(): Array<Record<string, unknown>> {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

export interface TestApp {
  services: AppServices;
  config: Config;
  dataDir: string;
  log: CapturedLog;
  /** Calls the app in-process: a Request in, a Response out. */
  request(pathOrUrl: string, init?: RequestInit & { json?: unknown; clientIp?: string }): Promise<Response>;
  close(): Promise<void>;
}

export async function createTestApp(
  options: {
    kind?: DatabaseKind;
    env?: Record<string, string>;
    transport?: MailTransport;
    backgroundJobs?: boolean;
    /** Run on this DATA_DIR (kept on close) instead of a fresh one removed on close. */
    dataDir?: string;
    /** Open the database the config names (PGlite in DATA_DIR, or DATABASE_URL), as `npm start` does. */
    databaseFromConfig?: boolean;
    /** No keys in the environment: the app generates DATA_DIR/secrets.json, as on a fresh machine. */
    generatedSecrets?: boolean;
  } = {},
): Promise<TestApp> {
  const bundle = await loadServer();
  const dataDir = options.dataDir ?? (await makeDataDir());
  const env = testEnv(dataDir, options.env);
  if (options.generatedSecrets) {
    delete env.CONFIG_ENCRYPTION_KEY;
    delete env.BETTER_AUTH_SECRET;
  }
  const config = bundle.loadConfig(env);
  const database = options.databaseFromConfig
    ? undefined
    : await createTestDatabase(options.kind ?? "pglite");
  const log = new CapturedLog();
  const logger = createLogger({ level: "debug", destination: log.stream });
  const running = await bundle.startServices(config, {
    database,
    logger,
    transport: options.transport,
    backgroundJobs: options.backgroundJobs ?? false,
  });
  const handle = bundle.createFetchHandler(running.services);
  return {
    services: running.services,
    config,
    dataDir,
    log,
    request(pathOrUrl, init = {}) {
      const { json, clientIp, ...rest } = init;
      const headers = new Headers(rest.headers);
      let body = rest.body;
      if (json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(json);
      }
      const url = new URL(pathOrUrl, config.PUBLIC_URL);
      return handle(
        new Request(url, {
          ...rest,
          method: rest.method ?? (json !== undefined ? "POST" : "GET"),
          headers,
          body,
        }),
        clientIp ?? `127.0.0.${crypto.randomInt(1, 250)}`,
      );
    },
    async close() {
      await running.close();
      if (!options.dataDir) await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestServer {
  url: string;
  services: AppServices;
  config: Config;
  dataDir: string;
  log: CapturedLog;
  stop(): Promise<void>;
}

/** The real HTTP server (Express + static assets) on a free port. */
export async function startTestServer(
  options: {
    env?: Record<string, string>;
    backgroundJobs?: boolean;
    transport?: MailTransport;
    kind?: DatabaseKind;
  } = {},
): Promise<TestServer> {
  const bundle = await loadServer();
  const dataDir = await makeDataDir();
  const config = bundle.loadConfig(testEnv(dataDir, options.env));
  const database = await createTestDatabase(options.kind ?? "pglite");
  const log = new CapturedLog();
  const logger = createLogger({ level: "debug", destination: log.stream });
  const running = await bundle.startServer({
    config,
    services: {
      database,
      logger,
      backgroundJobs: options.backgroundJobs ?? true,
      transport: options.transport,
    },
  });
  return {
    url: running.url.replace("localhost", "127.0.0.1"),
    services: running.services,
    config,
    dataDir,
    log,
    async stop() {
      await running.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The real HTTP server behind the in-process app's interface, so the helpers that sign up staff,
 * buy and sign in customers work on it too. Redirects are not followed, as in-process. Each
 * request names its client (`clientIp`, or one at random, as in-process) in X-Forwarded-For,
 * which a server started with TRUST_PROXY=127.0.0.1 takes: per-client limits do not add up.
 */
export function overHttp(server: TestServer): TestApp {
  return {
    services: server.services,
    config: server.config,
    dataDir: server.dataDir,
    log: server.log,
    request(pathOrUrl, init = {}) {
      const { json, clientIp, ...rest } = init;
      const headers = new Headers(rest.headers);
      headers.set("x-forwarded-for", clientIp ?? `127.0.0.${crypto.randomInt(1, 250)}`);
      let body = rest.body;
      if (json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(json);
      }
      const { pathname, search } = new URL(pathOrUrl, server.config.PUBLIC_URL);
      return fetch(`${server.url}${pathname}${search}`, {
        redirect: "manual",
        ...rest,
        method: rest.method ?? (json !== undefined ? "POST" : "GET"),
        headers,
        body,
      });
    },
    close: () => server.stop(),
  };
}
