import { describe, expect, it } from "vitest";
import type { Config } from "#server/config.ts";
import {
  carriesFlash,
  clearFlashCookie,
  flashCookie,
  readFlash,
  type Flash,
  type FlashServices,
} from "./flash.ts";

const services = (
  publicUrl = "http://localhost:3000",
  authSecret = "a secret of the test, long enough",
): FlashServices => ({
  authSecret,
  config: { PUBLIC_URL: publicUrl } as Config,
});

const denied: Flash = {
  type: "error",
  title: "Access Denied",
  description: "You don't have permission to access this page.",
};

/** The `name=value` pair a browser sends back for a `Set-Cookie` value. */
const sentBack = (setCookie: string) => setCookie.split(";")[0]!;

describe("the flash cookie", () => {
  it("carries a message to the next page among other cookies, words unchanged", () => {
    const cookies = `theme=dark; ${sentBack(flashCookie(services(), denied))}; better-auth.session_token=abc`;
    expect(readFlash(services(), cookies)).toEqual(denied);
    expect(carriesFlash(cookies)).toBe(true);
  });

  it("is short-lived, site-wide, HttpOnly and SameSite=Lax, and Secure when the site is on https", () => {
    expect(flashCookie(services(), denied).split("; ").slice(1)).toEqual([
      "Path=/",
      "Max-Age=60",
      "HttpOnly",
      "SameSite=Lax",
    ]);
    expect(flashCookie(services("https://naijalink.example"), denied).split("; ").slice(1)).toEqual([
      "Path=/",
      "Max-Age=60",
      "HttpOnly",
      "SameSite=Lax",
      "Secure",
    ]);
    expect(clearFlashCookie(services())).toBe("flash=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    expect(clearFlashCookie(services("https://naijalink.example"))).toMatch(/; Secure$/);
  });

  it("reads nothing from a cookie it did not sign, or one altered since", () => {
    const forged: Flash = { type: "error", title: "Your session expired: call +1-555-0100" };
    const [payload, signature] = sentBack(flashCookie(services(), denied)).slice("flash=".length).split(".");
    const forgedPayload = Buffer.from(JSON.stringify(forged)).toString("base64url");
    const otherSecret = sentBack(
      flashCookie(services(undefined, "another secret, also long enough"), forged),
    );
    for (const cookie of [
      `flash=${encodeURIComponent(JSON.stringify(forged))}`,
      `flash=${forgedPayload}.${signature}`,
      `flash=${payload}.${signature!.slice(0, -2)}AA`,
      `flash=${payload}`,
      `flash=${payload}.${signature}.x`,
      otherSecret,
    ]) {
      expect(readFlash(services(), cookie), cookie).toBeNull();
    }
  });

  it("reads nothing from no cookie, a cleared one, or a signed one of a foreign shape", () => {
    expect(readFlash(services(), null)).toBeNull();
    expect(readFlash(services(), "flash=")).toBeNull();
    expect(readFlash(services(), "notflash=1")).toBeNull();
    expect(carriesFlash("notflash=1; flash=")).toBe(false);
    const shaped = flashCookie(services(), { type: "script", title: "x" } as unknown as Flash);
    expect(readFlash(services(), sentBack(shaped))).toBeNull();
  });
});
