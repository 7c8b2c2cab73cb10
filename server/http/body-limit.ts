// The intake (intake.ts) on Node's requests, before any handler reads a byte (issues 13, 25): the
// target, the body's type and the route's credential are checked first; then the body is read up
// to the limit the intake allows (a body declared too large is refused at once, a chunked one as
// soon as it passes the limit), checked against the input rule, and handed on. No request,
// whatever its size or framing, holds more than its limit in memory; a refused one closes its
// connection unread.
import { IncomingMessage, type ServerResponse } from "node:http";
import { ApiError } from "./api.ts";
import { payloadTooLarge, type Intake, type IntakeRequest } from "./intake.ts";
import type { NodeHandler } from "./security-headers.ts";

const hasBody = (request: IncomingMessage) =>
  request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0;

export function withRequestIntake(intake: Intake, handler: NodeHandler): NodeHandler {
  return (request, response) => {
    const subject: IntakeRequest = {
      method: request.method ?? "GET",
      target: request.url ?? "/",
      header: (name) => {
        const value = request.headers[name];
        return Array.isArray(value) ? value[0] : value;
      },
      hasBody: hasBody(request),
    };
    intake.admit(subject).then(
      (admitted) => {
        if (admitted instanceof ApiError) return refuse(request, response, admitted);
        if (!subject.hasBody) return handler(request, response);
        readBody(request, response, admitted.limitBytes, (body) => {
          const refused = intake.check(subject, body);
          if (refused) return refuse(request, response, refused);
          handler(withBody(request, body), response);
        });
      },
      // A gate's own failure (the database unreachable): a 503, not a hung request.
      () =>
        refuse(
          request,
          response,
          new ApiError(
            503,
            "Service unavailable",
            "The server cannot check this request now. Please try again.",
          ),
        ),
    );
  };
}

function readBody(
  request: IncomingMessage,
  response: ServerResponse,
  limit: number,
  done: (body: Buffer) => void,
): void {
  if (Number(request.headers["content-length"] ?? 0) > limit)
    return refuse(request, response, payloadTooLarge(limit));
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  request.on("data", (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    if (size > limit) {
      refused = true;
      chunks.length = 0;
      return refuse(request, response, payloadTooLarge(limit));
    }
    chunks.push(chunk);
  });
  request.on("end", () => {
    if (!refused) done(Buffer.concat(chunks));
  });
}

/** A request that carries `body` already read: a fresh `IncomingMessage` on the same socket, so addresses and headers are the caller's. */
function withBody(request: IncomingMessage, body: Buffer): IncomingMessage {
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
  return read;
}

function refuse(request: IncomingMessage, response: ServerResponse, error: ApiError): void {
  if (!response.headersSent) {
    response.writeHead(error.status, {
      ...error.headers,
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...(hasBody(request) ? { connection: "close" } : {}),
    });
    response.end(JSON.stringify({ error: error.error, message: error.message }));
  }
  if (!hasBody(request)) return;
  // Read no more of it: once the answer is out, the connection goes.
  request.pause();
  response.once("finish", () => request.destroy());
}
