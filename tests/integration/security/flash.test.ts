// Issue 37: the flash message (a toast or a static page's notice after a redirect) is shown only
// when this server signed it. A cookie anyone set for the domain (a sibling subdomain, plain HTTP
// before HSTS) shows nothing. Over the real HTTP server, with the page cache in front.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flashCookie, type Flash } from "#server/http/flash.ts";
import { startTestServer, type TestServer } from "../../support/app.ts";
import { rawGet } from "../../support/http.ts";

const PHONE = "+1-555-0100";
const forged: Flash = { type: "error", title: `Your session expired: call ${PHONE}` };
const genuine: Flash = { type: "success", title: "Saved", description: "Shown once on the next page." };

describe("flash messages", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backgroundJobs: false });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const get = async (pathname: string, cookie?: string) => {
    const answer = await rawGet(`${server.url}${pathname}`, cookie ? { cookie } : {});
    return { ...answer, text: answer.body.toString("utf8") };
  };
  const sentBack = (setCookie: string) => setCookie.split(";")[0]!;

  it("shows a flash this server signed once, on a static page rendered for its request and on a hydrated page", async () => {
    await get("/pricing");
    expect((await get("/pricing")).headers["x-page-cache"]).toBe("hit");
    for (const pathname of ["/pricing", "/get-started"]) {
      const shown = await get(pathname, sentBack(flashCookie(server.services, genuine)));
      expect(shown.status).toBe(200);
      expect(shown.headers["x-page-cache"]).toBeUndefined();
      expect(shown.text).toContain(genuine.title);
      expect(shown.headers["set-cookie"]).toEqual(["flash=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"]);
    }
    // The page kept for everyone never holds it.
    const kept = await get("/pricing");
    expect(kept.headers["x-page-cache"]).toBe("hit");
    expect(kept.text).not.toContain(genuine.title);
  });

  it("shows nothing for a flash it did not sign, or one altered after it did, and clears it", async () => {
    const [payload, signature] = sentBack(flashCookie(server.services, genuine))
      .slice("flash=".length)
      .split(".");
    const forgedPayload = Buffer.from(JSON.stringify(forged)).toString("base64url");
    for (const value of [
      // The words in the clear, as the cookie used to carry them.
      encodeURIComponent(JSON.stringify(forged)),
      `${forgedPayload}.${signature}`,
      `${forgedPayload}`,
      `${payload}.${"A".repeat(signature!.length)}`,
    ]) {
      for (const pathname of ["/pricing", "/get-started", "/admin/login"]) {
        const answer = await get(pathname, `flash=${value}`);
        expect(answer.status, `${pathname} ${value}`).toBe(200);
        expect(answer.text, `${pathname} ${value}`).not.toContain(PHONE);
        expect(answer.text).not.toContain(genuine.title);
        expect(answer.text).not.toContain("data-page-notice");
        expect(answer.headers["set-cookie"]).toEqual(["flash=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax"]);
      }
    }
  });
});
