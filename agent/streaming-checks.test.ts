// The agent's streaming checks (decision 133): what answer counts as "works from here", and that a
// check is bounded (time, body size, no redirect followed) and never throws. Against a real local
// HTTP server, so fetch's own behaviour (redirects, aborts) is what is tested.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeStatusAnswerSchema, type StreamingCheck } from "./node-api.ts";
import { createStreamingChecker, judgeAnswer, runStreamingCheck } from "./streaming-checks.ts";

const ID = "8b0e7a52-3f7e-4a53-9a8b-6c1d2e3f4a5b";
const check = (fields: Partial<StreamingCheck>): StreamingCheck => ({
  id: ID,
  url: "http://127.0.0.1/",
  expectStatus: 200,
  ...fields,
});

describe("judging an answer", () => {
  it("wants the expected status, and counts a redirect as a refusal naming where it points", () => {
    expect(judgeAnswer(check({}), { status: 200 })).toEqual({ ok: true });
    expect(judgeAnswer(check({}), { status: 403 })).toEqual({ ok: false, reason: "answered 403, not 200" });
    expect(judgeAnswer(check({}), { status: 302, location: "https://example.com/geo-blocked" })).toEqual({
      ok: false,
      reason: "answered 302 (a redirect to https://example.com/geo-blocked), not 200",
    });
    expect(judgeAnswer(check({ expectStatus: 302 }), { status: 302, location: "/ng/" })).toEqual({
      ok: true,
    });
  });

  it("looks for the texts case-insensitively, the one to find and the one that must not be there", () => {
    const both = check({ bodyContains: "Watch now", bodyLacks: "not available in your region" });
    expect(judgeAnswer(both, { status: 200, body: "<h1>WATCH NOW</h1>" })).toEqual({ ok: true });
    expect(judgeAnswer(both, { status: 200, body: "<h1>Welcome</h1>" })).toEqual({
      ok: false,
      reason: 'the answer lacks "Watch now"',
    });
    expect(
      judgeAnswer(both, { status: 200, body: "Watch now? Sorry, this is Not Available in your region." }),
    ).toEqual({ ok: false, reason: 'the answer holds "not available in your region"' });
  });
});

describe("a check against a web server", () => {
  let server: http.Server;
  let base = "";
  let hangs = 0;
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (request.url === "/ok") return response.end("<p>Watch now</p>");
      if (request.url === "/geo") {
        response.writeHead(302, { location: "/unavailable" });
        return response.end();
      }
      if (request.url === "/unavailable") return response.end("Watch now");
      if (request.url === "/cookie") {
        response.writeHead(200, { "set-cookie": "session=secret" });
        return response.end(request.headers.cookie ? "had a cookie" : "Watch now");
      }
      if (request.url === "/huge") {
        // Watch now only after 300 KB: beyond what a check reads.
        response.writeHead(200);
        response.write(Buffer.alloc(300 * 1024, 97));
        return response.end("Watch now");
      }
      // /hang: headers, then nothing.
      hangs += 1;
      response.writeHead(200);
      response.write("Watch");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const now = () => new Date("2026-11-29T05:00:00Z");

  it("passes the expected answer and reports the status and when", async () => {
    expect(await runStreamingCheck(check({ url: `${base}/ok`, bodyContains: "watch now" }), { now })).toEqual(
      {
        id: ID,
        ok: true,
        status: 200,
        checkedAt: Date.parse("2026-11-29T05:00:00Z") / 1000,
      },
    );
  });

  it("does not follow a redirect to a block page", async () => {
    const result = await runStreamingCheck(check({ url: `${base}/geo`, bodyContains: "watch now" }), { now });
    expect(result).toMatchObject({ ok: false, status: 302 });
    expect(result.reason).toContain("/unavailable");
  });

  it("keeps no cookie from one check to the next", async () => {
    const cookie = check({ url: `${base}/cookie`, bodyContains: "watch now" });
    expect((await runStreamingCheck(cookie)).ok).toBe(true);
    expect((await runStreamingCheck(cookie)).ok).toBe(true);
  });

  it("reads at most the body limit", async () => {
    const huge = check({ url: `${base}/huge`, bodyContains: "watch now" });
    expect(await runStreamingCheck(huge, { maxBodyBytes: 1024 * 1024 })).toMatchObject({ ok: true });
    expect(await runStreamingCheck(huge)).toMatchObject({
      ok: false,
      reason: 'the answer lacks "watch now"',
    });
  });

  it("gives up on an answer that never ends, and on a port nobody answers, without throwing", async () => {
    const before = hangs;
    const slow = await runStreamingCheck(check({ url: `${base}/hang`, bodyContains: "watch now" }), {
      timeoutMs: 300,
    });
    expect(hangs).toBe(before + 1);
    expect(slow).toMatchObject({ ok: false, reason: "no answer within 0.3 s" });
    const closed = await runStreamingCheck(check({ url: "http://127.0.0.1:9/" }));
    expect(closed.ok).toBe(false);
    expect(closed.status).toBeUndefined();
    expect(closed.reason).toMatch(/^no answer: /);
  });

  it("checks a new list at once and hands each result over once, keeping one a report could not deliver", async () => {
    let told = 0;
    const checker = createStreamingChecker({ onResults: () => (told += 1), now });
    checker.configure([check({ url: `${base}/ok` })]);
    await checker.settled();
    expect(told).toBe(1);
    const results = checker.take();
    expect(results).toMatchObject([{ id: ID, ok: true }]);
    expect(checker.take()).toEqual([]);
    checker.putBack(results);
    expect(checker.take()).toEqual(results);
    // The same list again is not a change: nothing runs.
    checker.configure([check({ url: `${base}/ok` })]);
    await checker.settled();
    expect(told).toBe(1);
    // An empty list forgets what was listed.
    checker.putBack(results);
    checker.configure([]);
    expect(checker.take()).toEqual([]);
  });

  it("reads the control plane's list, and an older control plane's answer as none", () => {
    expect(nodeStatusAnswerSchema.parse({ ok: true }).streamingChecks).toBeUndefined();
    expect(() =>
      nodeStatusAnswerSchema.parse({ streamingChecks: [{ ...check({}), url: "file:///etc/passwd" }] }),
    ).toThrow();
  });
});
