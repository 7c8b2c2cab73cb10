// The security headers of every answer: pages (rendered, cached or not), the API, static files.
// The host wraps its whole request handler in this, so the page cache's hits get them from the
// same place as everything else. The Content-Security-Policy allows no inline
// script by default; a rendered page replaces it with the same policy plus the hashes of its own
// inline scripts (decision 066).
import crypto from "node:crypto";
import helmet from "helmet";
import type { IncomingMessage, ServerResponse } from "node:http";

export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void;

export const CSP_HEADER = "Content-Security-Policy";

export interface PolicyOptions {
  /** Vite's dev server talks to its HMR client over a WebSocket. */
  development: boolean;
  /** /check has the browser look up a name under this zone, as an image that fails (decision 091). */
  dnsCheckZone?: string;
}

/** The one policy; `scriptHashes` are the `'sha256-…'` sources of a page's own inline scripts. */
export function contentSecurityPolicy(options: PolicyOptions, scriptHashes: readonly string[] = []): string {
  const directives: Array<[string, ...string[]]> = [
    ["default-src", "'self'"],
    ["base-uri", "'self'"],
    ["font-src", "'self'", "https:", "data:"],
    ["form-action", "'self'", "https://checkout.stripe.com"],
    ["frame-ancestors", "'self'"],
    [
      "img-src",
      "'self'",
      "data:",
      "https://i.ytimg.com",
      ...(options.dnsCheckZone ? [`https://*.${options.dnsCheckZone}`] : []),
    ],
    ["object-src", "'none'"],
    ["script-src", "'self'", ...scriptHashes],
    ["script-src-attr", "'none'"],
    // React and sonner set style attributes and inject style elements.
    ["style-src", "'self'", "'unsafe-inline'"],
    ["frame-src", "https://www.youtube-nocookie.com"],
    ["connect-src", "'self'", ...(options.development ? ["ws:"] : [])],
  ];
  return directives.map((directive) => directive.join(" ")).join("; ");
}

/**
 * The `'sha256-…'` source of every `<script>` without `src` in a rendered document, in order,
 * without repeats. A script element's text runs to the first `</script`, as the HTML parser
 * reads it; React escapes `<` and `>` in attributes and React Router escapes `<` in its data, so
 * a tag cannot hide inside another.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const [, attributes = "", text = ""] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script/gi)) {
    if (/(^|\s)src\s*=/i.test(attributes)) continue;
    hashes.add(`'sha256-${crypto.createHash("sha256").update(text, "utf8").digest("base64")}'`);
  }
  return [...hashes];
}

/**
 * The build's stylesheets: a policy applies to a document or a worker, never to a stylesheet, and
 * its ~400 bytes would count against the first page's 14 KB (HTML and critical CSS, issue 5).
 */
const isStylesheet = (url = "") => /^\/assets\/[^?#]*\.css(?:[?#]|$)/.test(url);

export function withSecurityHeaders(
  options: PolicyOptions & { https: boolean },
  handler: NodeHandler,
): NodeHandler {
  const headers = helmet({
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    hsts: options.https,
    // Not helmet's no-referrer: under it Chromium posts a form with `Origin: null`, which React
    // Router's check of a page action's origin refuses (400), so no form worked without JavaScript.
    // Other sites still get no referrer.
    referrerPolicy: { policy: "same-origin" },
    // X-Download-Options is read by Internet Explorer 8 alone; every page's 14 KB carried it.
    xDownloadOptions: false,
  });
  const defaultPolicy = contentSecurityPolicy(options);
  // Helmet only sets headers and hands the request on synchronously.
  return (request, response) =>
    headers(request, response, (error?: unknown) => {
      if (error) {
        response.statusCode = 500;
        return response.end();
      }
      if (!isStylesheet(request.url)) response.setHeader(CSP_HEADER, defaultPolicy);
      handler(request, response);
    });
}
