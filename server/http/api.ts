import type { AppLoadContext } from "react-router";
import type { z } from "zod";
import { type ZodType } from "zod";
import { DomainError, type DomainErrorKind } from "#server/domain/errors.ts";

/** A failure the caller can fix or should know about; becomes `{ error, message }` with its status. */
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly error: string,
    message: string,
    public readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const badRequest = (message: string) => new ApiError(400, "Invalid request", message);
export const unauthorized = (message = "Please sign in first.") => new ApiError(401, "Unauthorized", message);
export const forbidden = (message = "You don't have permission to do this.") =>
  new ApiError(403, "Forbidden", message);
export const tooManyRequests = (retryAfterSeconds: number) =>
  new ApiError(
    429,
    "Too many requests",
    `Too many requests. Please try again in ${retryAfterSeconds} seconds.`,
    {
      "Retry-After": String(retryAfterSeconds),
    },
  );

const HTTP_STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  "not-found": 404,
  conflict: 409,
  gone: 410,
  "payment-required": 402,
  "rate-limited": 429,
  unavailable: 503,
  "upstream-failed": 502,
};

/** The HTTP status and headers of a refusal, whether the domain or the HTTP layer raised it. */
export function statusOf(error: ApiError | DomainError): { status: number; headers: Record<string, string> } {
  if (error instanceof ApiError) return { status: error.status, headers: error.headers };
  const headers: Record<string, string> =
    error.retryAfterSeconds === undefined ? {} : { "Retry-After": String(error.retryAfterSeconds) };
  return { status: HTTP_STATUS_OF_KIND[error.kind], headers };
}

export function errorResponse(error: ApiError | DomainError): Response {
  const { status, headers } = statusOf(error);
  return Response.json(
    { error: error.error, message: error.message },
    { status, headers: { "Cache-Control": "no-store", ...headers } },
  );
}

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

/** Reads a JSON body with a size cap; anything else is a 4xx, never a 500. */
export async function readJsonBody(
  request: Request,
  limitBytes = DEFAULT_BODY_LIMIT_BYTES,
): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limitBytes)
    throw new ApiError(413, "Payload too large", `The request body must be at most ${limitBytes} bytes.`);
  const contentType = request.headers.get("content-type") ?? "";
  if (!/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw new ApiError(415, "Unsupported media type", "Send the request body as application/json.");
  }
  const reader = request.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limitBytes) {
        await reader.cancel();
        throw new ApiError(413, "Payload too large", `The request body must be at most ${limitBytes} bytes.`);
      }
      chunks.push(value);
    }
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text.trim()) throw badRequest("The request body is empty; send a JSON object.");
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("The request body is not valid JSON.");
  }
}

/**
 * Reads a form's fields (what a `<Form method="post">` sends, with or without JavaScript) as an
 * object of strings, for the zod schema of a route action. Files are not taken.
 */
export async function readFormFields(request: Request): Promise<Record<string, string>> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(contentType)) {
    throw new ApiError(415, "Unsupported media type", "Send the form as application/x-www-form-urlencoded.");
  }
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw badRequest("The form could not be read.");
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of form) if (typeof value === "string") fields[name] = value;
  return fields;
}

export function parseInput<T>(schema: ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length ? `${issue.path.join(".")}: ` : "";
  throw badRequest(`${field}${issue.message}`);
}

/**
 * A path as a log line may name it: segments of lower-case words kept, any other (an id, a
 * capability token such as /api/configs/{token}) written `:param`.
 */
export const routeLabel = (pathname: string) =>
  pathname.replace(/[^/]+/g, (segment) => (/^[a-z][a-z-]*(\.[a-z]+)?$/.test(segment) ? segment : ":param"));

export interface ApiCall {
  request: Request;
  context: AppLoadContext;
  params: Record<string, string | undefined>;
}

/**
 * Wraps a resource-route handler: known failures become `{ error, message }` with
 * their status; anything unexpected is logged and answered with a generic 500.
 */
export async function handleApi(
  call: ApiCall,
  handler: () => Promise<Response | unknown>,
): Promise<Response> {
  try {
    const result = await handler();
    if (result instanceof Response) return result;
    return Response.json(result, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    if (error instanceof DomainError && statusOf(error).status >= 500) {
      // The operator's to fix (a provider down, a server setting refused): its own words, and
      // not the path, which may hold a capability token (/api/configs/{token}).
      call.context.services.logger.warn({ error: error.name }, error.message);
    }
    if (error instanceof ApiError || error instanceof DomainError) return errorResponse(error);
    if (error instanceof Response) return error;
    call.context.services.logger.error(
      { err: error, route: routeLabel(new URL(call.request.url).pathname) },
      "unexpected API error",
    );
    return Response.json(
      { error: "Internal error", message: "Something went wrong on our side. Please try again." },
      { status: 500, headers: { "Cache-Control": "no-store" } },
    );
  }
}

/**
 * A POST endpoint taking a JSON body that matches `schema`; the building block of
 * every `/api/*` action. GET and other methods get a 405.
 */
export function jsonEndpoint<S extends ZodType>(
  schema: S,
  handler: (input: z.infer<S>, call: ApiCall) => Promise<Response | unknown>,
  options: { bodyLimitBytes?: number } = {},
) {
  return (call: ApiCall) =>
    handleApi(call, async () => {
      if (call.request.method !== "POST") throw methodNotAllowed(["POST"]);
      const body = await readJsonBody(call.request, options.bodyLimitBytes);
      return handler(parseInput(schema, body) as z.infer<S>, call);
    });
}

export function methodNotAllowed(allowed: string[]): ApiError {
  return new ApiError(405, "Method not allowed", `Use ${allowed.join(" or ")} for this endpoint.`, {
    Allow: allowed.join(", "),
  });
}

/** The loader of a POST-only resource route. */
export function postOnlyLoader() {
  return errorResponse(methodNotAllowed(["POST"]));
}
