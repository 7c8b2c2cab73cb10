// The server entry that React Router builds into build/server/index.js (see vite.config.ts).
import { createRequestHandler as createExpressHandler } from "@react-router/express";
import compression from "compression";
import express from "express";
import { createServer, type Server } from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequestHandler, type AppLoadContext, type ServerBuild } from "react-router";
import type { ViteDevServer } from "vite";
import { loadConfig, type Config } from "./config.ts";
import { blogPageSource } from "./http/blog-pages.ts";
import { carriesFlash } from "./http/flash.ts";
import { clientAddress } from "./http/client-address.ts";
import { measureRequests, routePatterns, staticFilePaths } from "./http/metrics.ts";
import { createPageCache } from "./http/page-cache.ts";
import { servePrecompressedAssets } from "./http/precompressed-assets.ts";
import { ApiError, errorResponse } from "./http/api.ts";
import { withRequestIntake } from "./http/body-limit.ts";
import { applyCachePolicy, withCachePolicy } from "./http/cache-policy.ts";
import { admitFetchRequest, createIntake } from "./http/intake.ts";
import { answerUnreadable, refuseConnect, unexpectedServerError } from "./http/raw-refusals.ts";
import { routeActions, type ActionLookup } from "./http/route-actions.ts";
import { contentSecurityPolicy, CSP_HEADER, withSecurityHeaders } from "./http/security-headers.ts";
import { salesStatePageSource, staticPageSource, staticPagePaths } from "./http/static-pages.ts";
import { recordServerUrl } from "./domain/vpn/admin-token.ts";
import { startServices, type AppServices, type ServiceOptions } from "./services.ts";

export { ConfigError, loadConfig } from "./config.ts";
export { startServices } from "./services.ts";
export { startupSummary } from "./startup-summary.ts";
export { storeChecksOffline } from "./domain/ops/doctor/store.ts";

declare module "react-router" {
  interface AppLoadContext {
    services: AppServices;
    /** The caller's address as Express sees it (honours TRUST_PROXY), IPv6 as its /64 (`clientAddress`). */
    clientIp: string;
    /** The same caller's whole address, for /check; per-client limits count `clientIp`. */
    exactClientIp: string;
    /**
     * Called by the document render with the hashes of the page's inline scripts: the host puts
     * the policy allowing them on this answer, in place of the default. Not a header on the
     * render's Response, because Express's adapter appends those to the ones already set, and
     * a browser enforces every policy it is sent.
     */
    allowInlineScripts(scriptHashes: readonly string[]): void;
  }
}

const loadBuild = () => import("virtual:react-router/server-build") as Promise<ServerBuild>;

/**
 * Fetch in, Fetch out: how tests call the app in-process, through the same intake and cache
 * policy as the HTTP server's requests (server/http/intake.ts, cache-policy.ts).
 */
export function createFetchHandler(services: AppServices) {
  const render = createRenderHandler(services);
  let actions: Promise<ActionLookup> | undefined;
  const intake = createIntake(services, () => (actions ??= loadBuild().then(routeActions)));
  return async (request: Request, remoteAddress = "127.0.0.1") => {
    const admitted = await admitFetchRequest(intake, request);
    const response =
      admitted instanceof ApiError ? errorResponse(admitted) : await render(admitted, remoteAddress);
    return applyCachePolicy(new URL(request.url).pathname, response);
  };
}

/** React Router on a Fetch request already admitted: what the page cache renders pages with. */
function createRenderHandler(services: AppServices) {
  // Resolved once: handed a function, React Router would rebuild its route table on every request.
  let handler: ReturnType<typeof createRequestHandler> | undefined;
  const policy = {
    development: routerMode(services) === "development",
    dnsCheckZone: services.config.VPN_DNS_CHECK_ZONE,
  };
  return async (request: Request, remoteAddress = "127.0.0.1") => {
    handler ??= createRequestHandler(await loadBuild(), routerMode(services));
    let scriptHashes: readonly string[] | undefined;
    const context: AppLoadContext = {
      services,
      clientIp: clientAddress(remoteAddress),
      exactClientIp: remoteAddress,
      allowInlineScripts: (hashes) => (scriptHashes = hashes),
    };
    const response = await handler(request, context);
    if (scriptHashes) response.headers.set(CSP_HEADER, contentSecurityPolicy(policy, scriptHashes));
    return response;
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

/**
 * Everything the HTTP server answers, as one Node handler: the security headers first (one
 * helmet for every answer), then a current page from the page cache, then Express.
 */
export async function createHttpHandler(services: AppServices, viteDevServer?: ViteDevServer) {
  const app = express();
  app.disable("x-powered-by");
  if (services.config.TRUST_PROXY !== false) app.set("trust proxy", services.config.TRUST_PROXY);
  // Production only: in development Vite reloads routes, so a kept page could be stale.
  const build = viteDevServer ? undefined : await loadBuild();
  const pageCache = build
    ? createPageCache({
        handle: createRenderHandler(services),
        publicUrl: services.config.PUBLIC_URL,
        personal: (request) => carriesFlash(request.headers.cookie),
        sources: [
          staticPageSource(staticPagePaths(build)),
          salesStatePageSource(staticPagePaths(build, "sales-state"), services.db),
          blogPageSource(services.blogFreshness),
        ],
      })
    : undefined;
  // Before the page cache's misses, so an answer it does not keep (a 404) is still compressed;
  // the pages it keeps are compressed once per render and left alone here.
  app.use(compression());
  if (pageCache) app.use(pageCache.serve);

  const actionsOfBuild = build ? routeActions(build) : undefined;
  // In development the route table changes under Vite: read it again for each POST.
  const actions = actionsOfBuild
    ? () => Promise.resolve(actionsOfBuild)
    : () =>
        (viteDevServer!.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>).then(
          routeActions,
        );
  const clientDir = path.join(findProjectRoot(), "build/client");
  if (viteDevServer) {
    app.use(viteDevServer.middlewares);
  } else {
    app.use("/assets", servePrecompressedAssets(`${clientDir}/assets`));
    app.use("/assets", express.static(`${clientDir}/assets`, { immutable: true, maxAge: "1y" }));
    app.use(express.static(clientDir, { maxAge: "1h" }));
  }

  const options = {
    https: services.config.PUBLIC_URL.startsWith("https://"),
    development: !build,
    dnsCheckZone: services.config.VPN_DNS_CHECK_ZONE,
  };
  app.use(
    createExpressHandler({
      // A function only in development, where Vite reloads routes; in production the build is fixed.
      build: viteDevServer
        ? () => viteDevServer.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>
        : build!,
      mode: routerMode(services),
      getLoadContext: (req, res) =>
        ({
          services,
          clientIp: clientAddress(req.ip),
          exactClientIp: req.ip ?? "unknown",
          allowInlineScripts: (hashes) => res.setHeader(CSP_HEADER, contentSecurityPolicy(options, hashes)),
        }) satisfies AppLoadContext,
    }),
  );
  // Express's own final handler would print the stack to stderr: this one logs it as JSON.
  app.use(unexpectedServerError(services.logger));
  // A current page is answered on Node's request, before Express: its router and request
  // decoration would cost most of a hit (decision 022).
  const answer = withSecurityHeaders(
    options,
    withCachePolicy(
      withRequestIntake(createIntake(services, actions), (request, response) => {
        if (!pageCache?.serveHit(request, response)) app(request, response);
      }),
    ),
  );
  // In development routes change under Vite, so requests carry one label there.
  const routeOf = build ? routePatterns(build.routes, staticFilePaths(clientDir)) : () => "development";
  return measureRequests(services.metrics, routeOf, answer);
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
  const handler = await createHttpHandler(services, options.viteDevServer);
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = createServer(
      {
        // Deliberate timeouts: a client gets 20 s to send its headers and 30 s for the whole
        // request (bodies are at most a few MB); an idle keep-alive connection lives 65 s,
        // longer than the usual load balancer's 60 s, so the balancer closes it first.
        headersTimeout: 20_000,
        requestTimeout: 30_000,
        keepAliveTimeout: 65_000,
        // The intake answers a missing Host with a JSON 400, as every other refusal.
        requireHostHeader: false,
      },
      handler,
    );
    // What Node answers before any handler (a method token it does not know, a malformed
    // request, CONNECT): a JSON refusal too, never a bare status line or a dropped connection.
    listening.on("clientError", answerUnreadable);
    listening.on("connect", refuseConnect);
    listening.once("error", reject);
    listening.listen(config.PORT, config.HOST, () => {
      listening.off("error", reject);
      resolve(listening);
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  const url = `http://localhost:${port}`;
  // `npm run vpn` and `npm run doctor` read where to ask from the admin token file.
  await recordServerUrl(config.DATA_DIR, config.HOST, port);
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
