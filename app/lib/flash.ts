// A message for the next page, set where a redirect is decided (Epic Stack's toast cookie): the
// admin list's "Access Denied" when it sends a signed-in non-staff user to /. The next page
// shows it once: a hydrated page through the root loader (sonner), a static page through the
// enhancement script (an inline message). Static pages are rendered once for everyone, so the
// script reads the cookie in the browser: it is readable there and carries nothing secret.

export const FLASH_COOKIE = "flash";
/** Long enough for one redirect, short enough not to greet a later visit. */
const MAX_AGE_SECONDS = 60;

export interface Flash {
  type: "success" | "error" | "info";
  title: string;
  description?: string;
}

const FLASH_TYPES: ReadonlyArray<Flash["type"]> = ["success", "error", "info"];

/** The `Set-Cookie` value that hands `flash` to the next page. */
export function flashCookie(flash: Flash): string {
  const value = encodeURIComponent(JSON.stringify(flash));
  return `${FLASH_COOKIE}=${value}; Path=/; Max-Age=${MAX_AGE_SECONDS}; SameSite=Lax`;
}

/** The `Set-Cookie` value (or `document.cookie` assignment) that removes it once shown. */
export const CLEAR_FLASH_COOKIE = `${FLASH_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`;

/** The flash in a `Cookie` header or `document.cookie`, if there is a well-formed one. */
export function readFlash(cookies: string | null | undefined): Flash | null {
  const prefix = `${FLASH_COOKIE}=`;
  const raw = cookies
    ?.split(";")
    .map((cookie) => cookie.trim())
    .find((cookie) => cookie.startsWith(prefix))
    ?.slice(prefix.length);
  if (!raw) return null;
  try {
    const parsed = JSON.parse(decodeURIComponent(raw)) as Partial<Flash> | null;
    if (!parsed || !FLASH_TYPES.includes(parsed.type!) || typeof parsed.title !== "string") return null;
    const description = typeof parsed.description === "string" ? parsed.description : undefined;
    return { type: parsed.type!, title: parsed.title, description };
  } catch {
    return null;
  }
}
