// Issue 37: every address the product builds comes from PUBLIC_URL, never from the request's Host
// (nor X-Forwarded-Host behind a trusted proxy): a forged one never appears in a checkout's URL,
// a page, a feed or an e-mailed link. A Host that is no host name is a 400, not a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { overHttp, startTestServer, type TestServer } from "../../support/app.ts";
import { rawRequest } from "../../support/http.ts";
import { createAccount, queuedEmails, STAFF_EMAIL } from "../../support/staff.ts";

const EVIL = "evil.example";

describe("the Host header", () => {
  let server: TestServer;
  beforeAll(async () => {
    // Express would take X-Forwarded-Host from this client (the test, on 127.0.0.1).
    server = await startTestServer({ backgroundJobs: false, env: { TRUST_PROXY: "127.0.0.1" } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const forged = (method: string, target: string, headers: Record<string, string> = {}, body?: string) =>
    rawRequest(server.url, {
      method,
      target,
      headers: {
        host: EVIL,
        "x-forwarded-host": EVIL,
        "x-forwarded-proto": "https",
        ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }),
        ...headers,
      },
      body,
    });

  it("never makes the built-in checkout's address from it", async () => {
    const answer = await forged(
      "POST",
      "/api/create-checkout",
      { "content-type": "application/json" },
      JSON.stringify({ planId: "unlock", customerEmail: "host-buyer@example.com" }),
    );
    expect(answer.status).toBe(200);
    const { url } = JSON.parse(answer.body) as { url: string };
    expect(url).toMatch(new RegExp(`^${server.config.PUBLIC_URL}/checkout/cs_test_`));
    expect(answer.body).not.toContain(EVIL);
  });

  it("never puts it in a page, the page kept for everyone, a feed, the sitemap or robots.txt", async () => {
    // The first request of a static page renders the copy every later visitor gets.
    for (const target of [
      "/",
      "/pricing",
      "/get-started",
      "/blog",
      "/blog/rss.xml",
      "/sitemap.xml",
      "/robots.txt",
      "/admin/login",
    ]) {
      const answer = await forged("GET", target);
      expect(answer.status, target).toBe(200);
      expect(answer.body, target).not.toContain(EVIL);
      expect(JSON.stringify(answer.headers), target).not.toContain(EVIL);
    }
    const kept = await rawRequest(server.url, { method: "GET", target: "/pricing" });
    expect(kept.headers["x-page-cache"]).toBe("hit");
    expect(kept.body).not.toContain(EVIL);
    expect(kept.body).toContain(`${server.config.PUBLIC_URL}/pricing`);
  });

  it("never puts it in an e-mailed link", async () => {
    await createAccount(overHttp(server), STAFF_EMAIL);
    const answer = await forged(
      "POST",
      "/api/auth/request-password-reset",
      { "content-type": "application/json", origin: server.config.PUBLIC_URL },
      JSON.stringify({ email: STAFF_EMAIL, redirectTo: "/admin/login" }),
    );
    expect(answer.status).toBe(200);
    await server.services.mail.detachedSettled();
    const sent = (await queuedEmails(overHttp(server), STAFF_EMAIL)).filter(
      (email) => email.kind === "auth.password-reset",
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toContain(`${server.config.PUBLIC_URL}/`);
    expect(sent[0]!.text + (sent[0]!.html ?? "")).not.toContain(EVIL);
  });

  it("answers a Host, or a trusted X-Forwarded-Host, that is no host name with 400 { error, message }", async () => {
    for (const headers of <Array<Record<string, string>>>[
      { host: "exa mple" },
      { host: "a<b" },
      { host: "" },
      { "x-forwarded-host": "bad host, x" },
    ]) {
      const answer = await rawRequest(server.url, { method: "GET", target: "/api/sitemap", headers });
      expect(answer.status, JSON.stringify(headers)).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({
        error: "Invalid request",
        message: expect.stringMatching(/Host/),
      });
    }
    expect(server.log.text).not.toContain("unexpected error");
  });
});
