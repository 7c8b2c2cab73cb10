// The session token stays in the HttpOnly cookie for browsers (decision 065). better-auth's
// bearer plugin also puts it in a `set-auth-token` header, and its sign-in, two-factor and
// session answers carry it in their JSON; page scripts (or a script injected into them) could
// read both. Only a client that is not a browser gets the token, for `Authorization: Bearer`.

/**
 * A browser marks every request a script makes: `Origin` on any POST (also same-origin), the
 * `Sec-Fetch-*` headers on every request to an https or local origin. Scripts cannot remove
 * either. A command-line client sends neither, and that is how it asks for the token.
 */
export function comesFromBrowser(request: Request): boolean {
  const headers = request.headers;
  return headers.has("origin") || headers.has("sec-fetch-mode") || headers.has("sec-fetch-site");
}

function withoutToken(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutToken);
  if (!value || typeof value !== "object") return value;
  const { token: _token, ...rest } = value as Record<string, unknown>;
  if (rest.session && typeof rest.session === "object") rest.session = withoutToken(rest.session);
  return rest;
}

/** better-auth's answer as a browser may see it: no `set-auth-token`, no `token` in the JSON. */
export async function hideSessionToken(request: Request, response: Response): Promise<Response> {
  if (!comesFromBrowser(request)) return response;
  const headers = new Headers(response.headers);
  headers.delete("set-auth-token");
  const exposed = (headers.get("access-control-expose-headers") ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name && name.toLowerCase() !== "set-auth-token");
  if (exposed.length) headers.set("access-control-expose-headers", exposed.join(", "));
  else headers.delete("access-control-expose-headers");
  if (!/^application\/json\b/i.test(headers.get("content-type") ?? "") || !response.body) {
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
  const text = await response.text();
  let body = text;
  try {
    body = JSON.stringify(withoutToken(JSON.parse(text)));
  } catch {
    // Not JSON after all: passed on as it came.
  }
  headers.delete("content-length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
