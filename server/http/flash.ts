// A message for the next page, set where a redirect is decided (Epic Stack's toast cookie): the
// admin list's "Access Denied" when it sends a signed-in non-staff user to /, a staff action's
// success. The root loader reads it once and clears it; a hydrated page toasts it, a static page
// is rendered for this request with it (the page cache leaves such a request to the app).
//
// Its words are shown as the site's own, so the cookie is signed (HMAC-SHA256 under a key derived
// from the auth secret) and a forged or altered one shows nothing; it is HttpOnly (no script reads
// or writes it), SameSite=Lax, and Secure when the site is served over https (decision 123).
import crypto from "node:crypto";
import type { AppServices } from "#server/services.ts";

export interface Flash {
  type: "success" | "error" | "info";
  title: string;
  description?: string;
}

export type FlashServices = Pick<AppServices, "authSecret" | "config">;

export const FLASH_COOKIE = "flash";
/** Long enough for one redirect, short enough not to greet a later visit. */
const MAX_AGE_SECONDS = 60;
const FLASH_TYPES: ReadonlyArray<Flash["type"]> = ["success", "error", "info"];

const keys = new Map<string, Buffer>();
/** A key of its own, so a flash's signature can never stand for anything the auth secret signs. */
function keyOf(authSecret: string): Buffer {
  let key = keys.get(authSecret);
  if (!key) {
    key = crypto.createHmac("sha256", authSecret).update("naijalink flash cookie").digest();
    keys.set(authSecret, key);
  }
  return key;
}

const signatureOf = (services: FlashServices, payload: string) =>
  crypto.createHmac("sha256", keyOf(services.authSecret)).update(payload).digest();

const attributes = (services: FlashServices, maxAge: number) =>
  `Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${services.config.PUBLIC_URL.startsWith("https://") ? "; Secure" : ""}`;

/** The `Set-Cookie` value that hands `flash` to the next page. */
export function flashCookie(services: FlashServices, flash: Flash): string {
  const words: Flash = { type: flash.type, title: flash.title, description: flash.description };
  const payload = Buffer.from(JSON.stringify(words)).toString("base64url");
  const value = `${payload}.${signatureOf(services, payload).toString("base64url")}`;
  return `${FLASH_COOKIE}=${value}; ${attributes(services, MAX_AGE_SECONDS)}`;
}

/** The `Set-Cookie` value that removes it once read (or when it was not ours). */
export const clearFlashCookie = (services: FlashServices) => `${FLASH_COOKIE}=; ${attributes(services, 0)}`;

function rawFlash(cookies: string | null | undefined): string | undefined {
  const prefix = `${FLASH_COOKIE}=`;
  return cookies
    ?.split(";")
    .map((cookie) => cookie.trim())
    .find((cookie) => cookie.startsWith(prefix))
    ?.slice(prefix.length);
}

/** Whether a `Cookie` header holds a flash cookie at all (signed or not): its page is this visitor's. */
export const carriesFlash = (cookies: string | null | undefined) => Boolean(rawFlash(cookies));

/** The flash in a `Cookie` header when it is one this server signed, well-formed; otherwise null. */
export function readFlash(services: FlashServices, cookies: string | null | undefined): Flash | null {
  const [payload, signature, ...rest] = (rawFlash(cookies) ?? "").split(".");
  if (!payload || !signature || rest.length) return null;
  const expected = signatureOf(services, payload);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
  try {
    const parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Partial<Flash> | null;
    if (!parsed || !FLASH_TYPES.includes(parsed.type!) || typeof parsed.title !== "string") return null;
    const description = typeof parsed.description === "string" ? parsed.description : undefined;
    return { type: parsed.type!, title: parsed.title, description };
  } catch {
    return null;
  }
}
