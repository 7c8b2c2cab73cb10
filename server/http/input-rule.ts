// The one input rule of the whole app (issue 25), applied at the edge before any handler or
// library (better-auth, zod, the database driver) sees a request: no string with a NUL or an
// unpaired surrogate anywhere in the query, a JSON body or a form body (PostgreSQL refuses both,
// which surfaced as 500s from a dozen routes); bodies only in the one type their route reads
// (JSON under /api/, a urlencoded form for a page's action), else 415; JSON nested at most
// MAX_JSON_DEPTH deep. Pure functions: intake.ts applies them to Node's and to Fetch requests.
import { ApiError, badRequest } from "./api.ts";

/** A surrogate code unit without its pair (in a `u` regex a pair is one code point, a lone one `\p{Cs}`). */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

export const MAX_JSON_DEPTH = 32;

/** Whether `text` may reach a handler: no NUL, no unpaired surrogate. */
export const isCleanText = (text: string) => !text.includes("\u0000") && !UNPAIRED_SURROGATE.test(text);

const HOSTILE_TEXT =
  "The request holds a NUL character or an unpaired surrogate, which no field accepts. Remove it and try again.";

const hostile = () => badRequest(HOSTILE_TEXT);

const unsupported = (message: string) => new ApiError(415, "Unsupported media type", message);

type BodyKind = "json" | "form";

/** API routes a plain HTML form posts to: a download the browser saves, with or without JavaScript. */
const FORM_API_ROUTES = new Set(["/api/admin/export"]);

/** What a route reads its body as: the JSON API under /api/, a page action's urlencoded form elsewhere. */
export const bodyKindOf = (pathname: string): BodyKind =>
  pathname.startsWith("/api/") && !FORM_API_ROUTES.has(pathname) ? "json" : "form";

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

/**
 * A host name, IPv4 or bracketed IPv6 address, with an optional port: what React Router's
 * adapter can make the request's URL from (a space or a `<` there made it throw, a 500).
 */
const HOST = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The refusal of a request's `Host` header (required) and, behind a trusted proxy, the first
 * `X-Forwarded-Host`, or undefined. Neither ever makes an address the app hands out: those come
 * from PUBLIC_URL.
 */
export function hostRefusal(
  host: string | undefined,
  forwardedHost: string | undefined,
): ApiError | undefined {
  if (host === undefined || !HOST.test(host))
    return badRequest("The request's Host header is missing or is not a host name.");
  const forwarded = forwardedHost?.split(",", 1)[0]!.trim();
  if (forwarded !== undefined && !HOST.test(forwarded))
    return badRequest("The request's X-Forwarded-Host header is not a host name.");
  return undefined;
}

/** The refusal of a request's target (its path segments and query), or undefined. */
export function targetRefusal(target: string): ApiError | undefined {
  const [path = "", query = ""] = splitTarget(target);
  for (const segment of path.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return badRequest("The address holds a malformed %-escape.");
    }
    if (!isCleanText(decoded)) return hostile();
  }
  for (const [name, value] of new URLSearchParams(query)) {
    if (!isCleanText(name) || !isCleanText(value)) return hostile();
  }
  return undefined;
}

/** The refusal of a body's declared type for the route at `pathname`, or undefined. */
export function contentTypeRefusal(pathname: string, contentType: string | undefined): ApiError | undefined {
  const kind = bodyKindOf(pathname);
  if (kind === "json" && !JSON_TYPE.test(contentType ?? ""))
    return unsupported("Send the request body as application/json.");
  if (kind === "form" && !FORM_TYPE.test(contentType ?? ""))
    return unsupported("Send the form as application/x-www-form-urlencoded.");
  return undefined;
}

/** The refusal of a body already read (its type accepted by `contentTypeRefusal`), or undefined. */
export function bodyRefusal(pathname: string, body: Uint8Array): ApiError | undefined {
  if (body.byteLength === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return badRequest("The request body is not valid UTF-8.");
  }
  if (bodyKindOf(pathname) === "form") {
    for (const [name, value] of new URLSearchParams(text)) {
      if (!isCleanText(name) || !isCleanText(value)) return hostile();
    }
    return undefined;
  }
  // Escapes (\u0000, \ud800) only become the characters once parsed, so the parsed value is searched.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text.trim() ? badRequest("The request body is not valid JSON.") : undefined;
  }
  return jsonRefusal(parsed);
}

/** Walks a parsed JSON value without recursion, so no nesting can overflow the stack. */
function jsonRefusal(value: unknown): ApiError | undefined {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length) {
    const [current, depth] = pending.pop()!;
    if (typeof current === "string") {
      if (!isCleanText(current)) return hostile();
      continue;
    }
    if (!current || typeof current !== "object") continue;
    if (depth >= MAX_JSON_DEPTH)
      return badRequest(`The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
    for (const [key, child] of Object.entries(current)) {
      if (!isCleanText(key)) return hostile();
      pending.push([child, depth + 1]);
    }
  }
  return undefined;
}

function splitTarget(target: string): [string, string] {
  const at = target.indexOf("?");
  return at === -1 ? [target, ""] : [target.slice(0, at), target.slice(at + 1)];
}
