// The security headers of every answer: pages (rendered, cached or not), the API, static files.
// The host wraps its whole request handler in this, so the page cache's hits get them from the
// same helmet as everything else (decision 023).
import helmet from "helmet";
import type { IncomingMessage, ServerResponse } from "node:http";

export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void;

export function withSecurityHeaders(
  options: { https: boolean; development: boolean },
  handler: NodeHandler,
): NodeHandler {
  const headers = helmet({
    contentSecurityPolicy: {
      directives: {
        "default-src": ["'self'"],
        "script-src": ["'self'", "'unsafe-inline'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "https://i.ytimg.com"],
        "frame-src": ["https://www.youtube-nocookie.com"],
        "connect-src": ["'self'", ...(options.development ? ["ws:"] : [])],
        "form-action": ["'self'", "https://checkout.stripe.com"],
        "upgrade-insecure-requests": null,
      },
    },
    crossOriginEmbedderPolicy: false,
    hsts: options.https,
  });
  // Helmet only sets headers and hands the request on synchronously.
  return (request, response) =>
    headers(request, response, (error?: unknown) => {
      if (!error) return handler(request, response);
      response.statusCode = 500;
      response.end();
    });
}
