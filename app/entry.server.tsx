// The document render: React Router's default, except that the page is rendered to the end
// before it is answered, so its Content-Security-Policy can allow exactly its inline scripts by
// their hashes (decision 066). A nonce could not do that: the page cache answers every visitor
// with the same bytes, compressed once.
import { PassThrough } from "node:stream";
import { renderToPipeableStream } from "react-dom/server";
import { ServerRouter, type AppLoadContext, type EntryContext } from "react-router";
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
          // An error in the shell rejects, and React Router logs it; later ones only React sees.
          if (shellRendered) console.error(error);
        },
      },
    );
  });
}
