// The server entry that React Router builds into build/server/index.js (see vite.config.ts).
import { createRequestHandler as createExpressHandler } from "@react-router/express";
import compression from "compression";
import express, { type RequestHandler } from "express";
import helmet from "helmet";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequestHandler, type AppLoadContext, type ServerBuild } from "react-router";
import type { ViteDevServer } from "vite";
import { loadConfig, type Config } from "./config.ts";
import { createPublicPageCache, watchBlogChanges } from "./domain/blog/cache.ts";
import { servePrecompressedAssets } from "./http/precompressed-assets.ts";
import { createStaticPageCache, staticPagePaths } from "./http/static-pages.ts";
import { startServices, type AppServices, type ServiceOptions } from "./services.ts";

export { ConfigError, loadConfig } from "./config.ts";
export { startServices } from "./services.ts";

declare module "react-router" {
  interface AppLoadContext {
    services: AppServices;
    /** The caller's address as Express sees it (honours TRUST_PROXY). */
    clientIp: string;
  }
}

const loadBuild = () => import("virtual:react-router/server-build") as Promise<ServerBuild>;

/** Fetch in, Fetch out: how tests call the app in-process. */
export function createFetchHandler(services: AppServices) {
  // Resolved once: handed a function, React Router would rebuild its route table on every request.
  let handler: ReturnType<typeof createRequestHandler> | undefined;
  return async (request: Request, clientIp = "127.0.0.1") => {
    handler ??= createRequestHandler(await loadBuild(), routerMode(services));
    return handler(request, { services, clientIp } satisfies AppLoadContext);
  };
}

const routerMode = (services: AppServices) =>
  services.config.NODE_ENV === "development" ? "development" : "production";

/** The folder holding package.json, wherever the bundler put this code. */
function findProjectRoot(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(directory, "package.json"))) {
    const parent = path.dirname(directory);
    if (parent === directory) return process.cwd();
    directory = parent;
  }
  return directory;
}

/** The headers a request-independent, header-only middleware sets, recorded by running it once. */
function recordHeaders(middleware: RequestHandler): Array<[string, string]> {
  const headers = new Map<string, [string, string]>();
  const response = {
    setHeader(name: string, value: unknown) {
      headers.set(name.toLowerCase(), [name, Array.isArray(value) ? value.join(", ") : String(value)]);
      return response;
    },
    removeHeader(name: string) {
      headers.delete(name.toLowerCase());
    },
    getHeader: (name: string) => headers.get(name.toLowerCase())?.[1],
  };
  let passed = false;
  void middleware({ headers: {}, method: "GET", url: "/" } as never, response as never, () => {
    passed = true;
  });
  if (!passed) throw new Error("recordHeaders: the middleware did not pass the request on synchronously");
  return [...headers.values()];
}

export async function createExpressApp(services: AppServices, viteDevServer?: ViteDevServer) {
  const app = express();
  app.disable("x-powered-by");
  if (services.config.TRUST_PROXY) app.set("trust proxy", true);
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        "default-src": ["'self'"],
        "script-src": ["'self'", "'unsafe-inline'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "https://i.ytimg.com"],
        "frame-src": ["https://www.youtube-nocookie.com"],
        "connect-src": ["'self'", ...(viteDevServer ? ["ws:"] : [])],
        "form-action": ["'self'", "https://checkout.stripe.com"],
        "upgrade-insecure-requests": null,
      },
    },
    crossOriginEmbedderPolicy: false,
    hsts: services.config.PUBLIC_URL.startsWith("https://"),
  });
  // Rendered blog pages, sitemap and feed served from memory while no post changed (decisions
  // 021, 022). A fresh hit is answered before compression (its bytes are compressed once, per
  // render); the rest comes after it, so pass-through answers (404s) are still compressed. Both
  // run before the static files: these paths never name a file in build/client.
  const fetchHandler = createFetchHandler(services);
  const pageCache = viteDevServer
    ? undefined
    : createPublicPageCache({
        db: services.db,
        handle: fetchHandler,
        changes: await watchBlogChanges(services.db, services.dbKind),
        // Helmet's headers depend on its options only (no nonces), so a hit gets a recorded copy
        // instead of running its twelve middlewares; a test compares them with a live answer.
        hitHeaders: recordHeaders(securityHeaders),
      });
  if (pageCache) {
    // startServer answers query-free hits before Express; this mount covers other hosts.
    app.locals.servePageHit = pageCache.serveRaw;
    app.use(pageCache.serveFresh);
  }
  const build = viteDevServer ? undefined : await loadBuild();
  app.use(securityHeaders);
  // The static marketing pages, rendered and compressed once (decision 012); before the
  // compression middleware, which leaves an already encoded answer alone.
  if (build) app.use(createStaticPageCache({ paths: staticPagePaths(build), handle: fetchHandler }));
  app.use(compression());
  if (pageCache) app.use(pageCache.handle);

  if (viteDevServer) {
    app.use(viteDevServer.middlewares);
  } else {
    const clientDir = path.join(findProjectRoot(), "build/client");
    app.use("/assets", servePrecompressedAssets(`${clientDir}/assets`));
    app.use("/assets", express.static(`${clientDir}/assets`, { immutable: true, maxAge: "1y" }));
    app.use(express.static(clientDir, { maxAge: "1h" }));
  }

  app.use(
    createExpressHandler({
      // A function only in development, where Vite reloads routes; in production the build is fixed.
      build: viteDevServer
        ? () => viteDevServer.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>
        : build!,
      mode: routerMode(services),
      getLoadContext: (req) => ({ services, clientIp: req.ip ?? "unknown" }) satisfies AppLoadContext,
    }),
  );
  return app;
}

export interface RunningServer {
  url: string;
  server: Server;
  services: AppServices;
  stop(): Promise<void>;
}

export async function startServer(
  options: { config?: Config; viteDevServer?: ViteDevServer; services?: ServiceOptions } = {},
): Promise<RunningServer> {
  const config = options.config ?? loadConfig();
  const running = await startServices(config, options.services);
  const { services } = running;
  const app = await createExpressApp(services, options.viteDevServer);
  // A fresh cached blog page is answered on Node's request before Express (decision 022).
  const servePageHit = app.locals.servePageHit as
    ((request: IncomingMessage, response: ServerResponse) => boolean) | undefined;
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = createServer((request, response) => {
      if (!servePageHit?.(request, response)) app(request, response);
    });
    listening.once("error", reject);
    listening.listen(config.PORT, config.HOST, () => {
      listening.off("error", reject);
      resolve(listening);
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  const url = `http://localhost:${port}`;
  services.logger.info(
    { url, database: services.dbKind, mail: services.mail.transport.description },
    `${config.BRAND_NAME} is listening on ${url}`,
  );

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      });
      await options.viteDevServer?.close();
      await running.close();
    })());
  return { url, server, services, stop };
}
