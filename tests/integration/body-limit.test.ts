// One body limit before any handler: huge bodies, chunked or declared, get a 413 and cost no memory.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMIT_BYTES } from "#server/http/body-limit.ts";
import { startTestServer, type TestServer } from "../support/app.ts";

const FIFTY_MB = 50 * 1024 * 1024;

/** Streams up to `total` bytes as a chunked body, made as it goes (never held), until the server answers. */
function postChunked(url: string, total: number): Promise<{ status: number; body: string; sent: number }> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    let answered = false;
    const request = http.request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
    });
    request.on("response", (response) => {
      answered = true;
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (text: string) => (body += text));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body, sent }));
    });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    const write = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once("drain", write);
      }
      if (!answered) request.end();
    };
    write();
  });
}

describe("the request body limit", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ backgroundJobs: false });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each([
    "/api/webhooks/stripe",
    "/api/auth/sign-in/email",
    "/checkout/cs_test_abcdefghijklmnop",
    "/api/verify-payment",
  ])(
    "answers a 50 MB chunked body to %s with 413 JSON as soon as the limit is passed, without holding it",
    async (path) => {
      global.gc?.();
      const before = process.memoryUsage().rss;
      const answer = await postChunked(`${server.url}${path}`, FIFTY_MB);
      const grown = process.memoryUsage().rss - before;
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toEqual({
        error: "Payload too large",
        message: `The request body must be at most ${BODY_LIMIT_BYTES} bytes.`,
      });
      expect(answer.sent).toBeLessThan(FIFTY_MB);
      expect(grown).toBeLessThan(FIFTY_MB);
    },
  );

  it("refuses a body declared too large before reading any of it", async () => {
    const answer = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${server.url}/api/create-checkout`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(FIFTY_MB) },
      });
      request.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on("error", reject);
      request.write("{");
    });
    expect(answer).toBe(413);
  });

  it("hands a body within the limit, chunked or not, to the route unchanged", async () => {
    const body = JSON.stringify({ planId: "unlock", customerEmail: "chunked@example.com" });
    for (const headers of [
      { "transfer-encoding": "chunked" },
      { "content-length": String(Buffer.byteLength(body)) },
    ]) {
      const status = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = http.request(`${server.url}/api/create-checkout`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
        });
        request.on("response", (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
        });
        request.on("error", reject);
        request.end(body);
      });
      expect(status.status, status.text).toBe(200);
      expect(JSON.parse(status.text)).toHaveProperty("url");
    }
  });
});
