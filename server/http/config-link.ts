import { isActivatingFetch } from "#core/config-activation.ts";
import { configLinkQuerySchema, handOutConfig } from "#server/domain/vpn/config-downloads.ts";
import { parseInput, type ApiCall } from "./api.ts";

/**
 * The config behind a capability link (`/api/configs/{token}` and its `/qr.svg`): `?port=` picks
 * the alternate-port variant; the success page's own fetch activates the device.
 */
export function configFromLink({ request, context, params }: ApiCall, activation: "download" | "qr") {
  const { services } = context;
  const query = parseInput(configLinkQuerySchema, Object.fromEntries(new URL(request.url).searchParams));
  return handOutConfig(
    { db: services.db, sealer: services.sealer, brandName: services.config.BRAND_NAME },
    params.token ?? "",
    query.port,
    isActivatingFetch(request.headers) ? activation : null,
  );
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** Whether the caller is a browser opening the link (it asks for HTML), not an API client. */
export function wantsHtml(request: Request): boolean {
  return /\btext\/html\b/i.test(request.headers.get("accept") ?? "");
}

/**
 * A config link that no longer works (revoked, new keys, refunded, ended) or never did, as a
 * browser sees it: a small page saying why, linking to the account page, with the same status
 * (410 or 404) the JSON answer has. API clients keep the JSON `{ error, message }`.
 */
export function configLinkRefusalPage(response: Response, message: string): Response {
  const title = response.status === 410 ? "This config link no longer works" : "There is no config here";
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#111}a{color:#00753f;font-weight:600}</style>
</head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>
<p>Your current configs are on your account page: <a href="/account">Go to your account</a>.</p></main></body></html>`;
  const headers = new Headers(response.headers);
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.set("Cache-Control", "no-store");
  headers.set("X-Robots-Tag", "noindex");
  headers.set("Vary", "Accept");
  return new Response(body, { status: response.status, headers });
}

/**
 * The answer of a config route: an error answer is HTML for a browser (`configLinkRefusalPage`),
 * JSON `{ error, message }` for everyone else.
 */
export async function configLinkAnswer(request: Request, response: Response): Promise<Response> {
  if (response.ok || (response.status !== 404 && response.status !== 410) || !wantsHtml(request))
    return response;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { message?: unknown } | null;
  const message = typeof body?.message === "string" ? body.message : "This config link does not work.";
  return configLinkRefusalPage(response, message);
}
