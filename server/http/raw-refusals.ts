// Refusals of what never becomes a request for the app (issue 37): a request Node cannot parse
// (a method token it does not know, a malformed header), CONNECT (Node hands over the socket),
// and an error that escaped every route into Express. Each is answered `{ error, message }` as
// JSON like every other refusal; none prints a stack trace to stdout or stderr.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { ErrorRequestHandler } from "express";
import type { Logger } from "#server/logger.ts";
import { routeLabel } from "./api.ts";
import { ALLOWED_METHODS } from "./intake.ts";

const REASONS: Record<number, string> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

/** A whole HTTP/1.1 answer, written on the socket itself, after which the connection closes. */
function rawAnswer(status: number, error: string, message: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ error, message });
  const lines = [
    `HTTP/1.1 ${status} ${REASONS[status]}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Cache-Control: no-store",
    "X-Content-Type-Options: nosniff",
    "Connection: close",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

const methodNotAllowed = () =>
  rawAnswer(405, "Method not allowed", `Use ${ALLOWED_METHODS.join(", ")}.`, {
    Allow: ALLOWED_METHODS.join(", "),
  });

/** What a parse error (`clientError`) is answered with, by Node's error code. */
function answerOf(code: string | undefined): string {
  switch (code) {
    case "HPE_INVALID_METHOD":
      return methodNotAllowed();
    case "HPE_HEADER_OVERFLOW":
      return rawAnswer(431, "Headers too large", "The request's headers are too large.");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return rawAnswer(408, "Request timeout", "The request took too long to arrive.");
    default:
      return rawAnswer(400, "Invalid request", "The request could not be read as HTTP.");
  }
}

/** The server's `clientError` listener: an answer while nothing was written on the connection yet. */
export function answerUnreadable(error: Error & { code?: string }, socket: Duplex): void {
  const written = "bytesWritten" in socket ? Number(socket.bytesWritten) : 0;
  if (error.code === "ECONNRESET" || !socket.writable || written > 0) {
    socket.destroy();
    return;
  }
  socket.end(answerOf(error.code));
}

/** The server's `connect` listener: this is no proxy. */
export function refuseConnect(_request: IncomingMessage, socket: Duplex): void {
  // The socket is no longer the HTTP server's: an error on it must not go unheard (it would end the process).
  socket.on("error", () => socket.destroy());
  socket.end(methodNotAllowed());
}

/**
 * Express's last error handler: what escaped every route (a route answers its own errors, so
 * this is a bug or a library's failure). Logged through the JSON logger, answered as JSON.
 */
export function unexpectedServerError(logger: Logger): ErrorRequestHandler {
  return (error: unknown, request, response, _next) => {
    const declared = (error as { status?: unknown; statusCode?: unknown } | null) ?? {};
    const status = Number(declared.status ?? declared.statusCode);
    const clientError = Number.isInteger(status) && status >= 400 && status < 500;
    const route = routeLabel(request.path);
    if (clientError) logger.info({ status, route }, "request refused by the HTTP server");
    else logger.error({ err: error, route }, "unexpected error in the HTTP server");
    if (response.headersSent) {
      response.destroy();
      return;
    }
    response
      .status(clientError ? status : 500)
      .set("Cache-Control", "no-store")
      .json(
        clientError
          ? { error: "Invalid request", message: "The request could not be answered as sent." }
          : { error: "Internal error", message: "Something went wrong on our side. Please try again." },
      );
  };
}
