// The document render: React Router's default, except that the page is rendered to the end
// before it is answered, so its Content-Security-Policy can allow exactly its inline scripts by
// their hashes (decision 066). A nonce could not do that: the page cache answers every visitor
// with the same bytes, compressed once.
import { PassThrough } from "node:stream";
import { renderToPipeableStream } from "react-dom/server";
import {
  isRouteErrorResponse,
  ServerRouter,
  type AppLoadContext,
  type EntryContext,
  type HandleErrorFunction,
} from "react-router";
import { routeLabel } from "#server/http/api.ts";
import { inlineScriptHashes } from "#server/http/security-headers.ts";

export const streamTimeout = 5_000;

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: AppLoadContext,
) {
  return new Promise<Response>((resolve, reject) => {
    let status = responseStatusCode;
    let shellRendered = false;
    // Past the timeout, pending boundaries are given up and rendered as their fallbacks.
    const timeout = setTimeout(() => abort(), streamTimeout + 1000);
    const { pipe, abort } = renderToPipeableStream(
      <ServerRouter context={routerContext} url={request.url} />,
      {
        onShellReady() {
          shellRendered = true;
        },
        onAllReady() {
          const chunks: Buffer[] = [];
          const body = new PassThrough();
          body.on("data", (chunk: Buffer) => chunks.push(chunk));
          body.on("end", () => {
            clearTimeout(timeout);
            const html = Buffer.concat(chunks);
            loadContext.allowInlineScripts(inlineScriptHashes(html.toString("utf8")));
            responseHeaders.set("Content-Type", "text/html");
            resolve(new Response(html, { headers: responseHeaders, status }));
          });
          pipe(body);
        },
        onShellError(error: unknown) {
          clearTimeout(timeout);
          reject(error);
        },
        onError(error: unknown) {
          status = 500;
          // An error in the shell rejects, and React Router logs it (handleError); later ones only React sees.
          if (shellRendered) loadContext.services.logger.error({ err: error }, "page render failed");
        },
      },
    );
  });
}

/**
 * Errors of loaders, actions and renders, through the one JSON logger (issue 25) instead of
 * React Router's console.error: the error's class, message and frames, and the route, not the URL
 * (its query may hold an address or a token). The router's own refusal of a request (a 405 for a
 * POST where no route has an action, a 404) is the client's mistake: info, not error (issue 37).
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  const { logger } = (context as AppLoadContext).services;
  const route = routeLabel(new URL(request.url).pathname);
  if (isRouteErrorResponse(error) && error.status < 500)
    logger.info({ status: error.status, route }, "request refused by the router");
  else logger.error({ err: error, route }, "unexpected error in a route");
};
