// One body limit before any handler: huge bodies, chunked or declared, get a 413 and cost no memory.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMIT_BYTES } from "#server/http/intake.ts";
import { startTestServer, type TestServer } from "../../support/app.ts";

const FIFTY_MB = 50 * 1024 * 1024;

/**
 * Streams up to `total` bytes as a body, made as it goes (never held), until the server answers:
 * chunked, or with `content-length` declared as `total` when `declared`.
 */
function postStreamed(
  url: string,
  total: number,
  options: { contentType?: string; declared?: boolean; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string; sent: number }> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    let answered = false;
    const request = http.request(url, {
      method: "POST",
      headers: {
        "content-type": options.contentType ?? "application/json",
        ...(options.declared ? { "content-length": String(total) } : { "transfer-encoding": "chunked" }),
        ...options.headers,
      },
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
    ["/api/auth/sign-in/email", "application/json"],
    ["/checkout/cs_test_abcdefghijklmnop", "application/x-www-form-urlencoded"],
    ["/api/verify-payment", "application/json"],
  ])(
    "answers a 50 MB chunked body to %s with 413 JSON as soon as the limit is passed, without holding it",
    async (path, contentType) => {
      global.gc?.();
      const before = process.memoryUsage().rss;
      const answer = await postStreamed(`${server.url}${path}`, FIFTY_MB, { contentType });
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

  it("refuses 20 parallel unauthenticated 16 MB node reports before reading them: 401 each, RSS grows under 10 MB", async () => {
    const SIXTEEN_MB = 16 * 1024 * 1024;
    global.gc?.();
    const before = process.memoryUsage().rss;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        postStreamed(`${server.url}/api/nodes/status`, SIXTEEN_MB, {
          declared: true,
          headers: { authorization: `Bearer ${"x".repeat(40)}${index}` },
        }),
      ),
    );
    global.gc?.();
    const grown = process.memoryUsage().rss - before;
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ error: "Unauthorized" });
      expect(answer.sent).toBeLessThan(SIXTEEN_MB);
    }
    expect(grown).toBeLessThan(10 * 1024 * 1024);
  });

  it("refuses a webhook without a well-shaped Stripe-Signature, and admin commands without the token, unread", async () => {
    const stripe = await startTestServer({
      backgroundJobs: false,
      env: { STRIPE_SECRET_KEY: "sk_test_intake", STRIPE_WEBHOOK_SECRET: "whsec_intake" },
    });
    try {
      for (const signature of [
        undefined,
        "",
        "t=1,v1=abc",
        `v1=${"a".repeat(64)}`,
        `t=1,v0=${"a".repeat(64)}`,
      ]) {
        const answer = await postStreamed(`${stripe.url}/api/webhooks/stripe`, FIFTY_MB, {
          declared: true,
          headers: signature === undefined ? {} : { "stripe-signature": signature },
        });
        expect(answer.status, String(signature)).toBe(400);
        expect(JSON.parse(answer.body).message).toContain("Stripe-Signature");
        expect(answer.sent).toBeLessThan(FIFTY_MB);
      }
    } finally {
      await stripe.stop();
    }
    const webhooksOff = await postStreamed(`${server.url}/api/webhooks/stripe`, FIFTY_MB, { declared: true });
    expect(webhooksOff.status).toBe(404);
    const admin = await postStreamed(`${server.url}/api/nodes/servers`, FIFTY_MB, { declared: true });
    expect(admin.status).toBe(401);
    expect(admin.sent).toBeLessThan(FIFTY_MB);
  });
});
