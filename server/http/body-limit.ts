// One body limit for every route, enforced before any handler reads a byte (issue 13): a body
// declared too large is refused at once, and a chunked one as soon as it passes the limit, so
// no request, whatever its size or framing, holds more than the limit in memory.
import { IncomingMessage, type ServerResponse } from "node:http";
import type { NodeHandler } from "./security-headers.ts";

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The few routes that take more: a node's status report lists up to 100,000 peers. */
const LARGER_LIMITS: Array<[path: string, limitBytes: number]> = [["/api/nodes/status", 16 * 1024 * 1024]];

export function bodyLimitFor(url: string | undefined): number {
  const path = (url ?? "/").split("?")[0];
  return LARGER_LIMITS.find(([limited]) => limited === path)?.[1] ?? BODY_LIMIT_BYTES;
}

const hasBody = (request: IncomingMessage) =>
  request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0;

/**
 * Reads the body up to the route's limit, then hands the handler a request that carries it
 * already read (a fresh `IncomingMessage` on the same socket, so addresses and headers are the
 * caller's). Past the limit: 413 `{ error, message }` and the connection closes.
 */
export function withBodyLimit(handler: NodeHandler): NodeHandler {
  return (request, response) => {
    if (!hasBody(request)) return handler(request, response);
    const limit = bodyLimitFor(request.url);
    if (Number(request.headers["content-length"] ?? 0) > limit) return refuse(request, response, limit);
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        chunks.length = 0;
        return refuse(request, response, limit);
      }
      chunks.push(chunk);
    });
    request.on("end", () => {
      if (refused) return;
      const body = Buffer.concat(chunks);
      const read = new IncomingMessage(request.socket);
      read.method = request.method;
      read.url = request.url;
      read.httpVersion = request.httpVersion;
      read.httpVersionMajor = request.httpVersionMajor;
      read.httpVersionMinor = request.httpVersionMinor;
      const headers = { ...request.headers, "content-length": String(body.length) };
      delete headers["transfer-encoding"];
      read.headers = headers;
      read.rawHeaders = Object.entries(headers).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value ?? ""]).flatMap((entry) => [name, entry]),
      );
      // The whole message is here; without this, Node would treat the finished stream as aborted.
      read.complete = true;
      read.push(body);
      read.push(null);
      handler(read, response);
    });
  };
}

function refuse(request: IncomingMessage, response: ServerResponse, limit: number): void {
  if (!response.headersSent) {
    response.writeHead(413, {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      connection: "close",
    });
    response.end(
      JSON.stringify({
        error: "Payload too large",
        message: `The request body must be at most ${limit} bytes.`,
      }),
    );
  }
  // Read no more of it: once the answer is out, the connection goes.
  request.pause();
  response.once("finish", () => request.destroy());
}
