import { describe, expect, it } from "vitest";
import { CLEAR_FLASH_COOKIE, flashCookie, readFlash, type Flash } from "./flash.ts";

const denied: Flash = {
  type: "error",
  title: "Access Denied",
  description: "You don't have permission to access this page.",
};

/** The `name=value` pair a browser sends back for a `Set-Cookie` value. */
const sentBack = (setCookie: string) => setCookie.split(";")[0]!;

describe("the flash cookie", () => {
  it("carries a message to the next page among other cookies, words unchanged", () => {
    const cookies = `theme=dark; ${sentBack(flashCookie(denied))}; better-auth.session_token=abc`;
    expect(readFlash(cookies)).toEqual(denied);
  });

  it("is short-lived, site-wide, SameSite=Lax and readable by the page's script", () => {
    const attributes = flashCookie(denied).split("; ").slice(1);
    expect(attributes).toEqual(["Path=/", "Max-Age=60", "SameSite=Lax"]);
    expect(CLEAR_FLASH_COOKIE).toBe("flash=; Path=/; Max-Age=0; SameSite=Lax");
  });

  it("reads nothing from no cookie, a cleared one, or a malformed or foreign-shaped one", () => {
    expect(readFlash(null)).toBeNull();
    expect(readFlash("flash=")).toBeNull();
    expect(readFlash("flash=%7Bnot-json")).toBeNull();
    expect(
      readFlash(`flash=${encodeURIComponent(JSON.stringify({ type: "script", title: "x" }))}`),
    ).toBeNull();
    expect(readFlash(`flash=${encodeURIComponent(JSON.stringify({ type: "info" }))}`)).toBeNull();
    expect(readFlash("notflash=1")).toBeNull();
  });
});
