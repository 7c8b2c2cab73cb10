// Per-client limits behind a reverse proxy (TRUST_PROXY): a caller cannot forge its way out.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../support/app.ts";

describe("per-client limits behind one trusted proxy (TRUST_PROXY=1)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: "1" }, backgroundJobs: false });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** As the proxy forwards it: whatever the caller sent, then the address the proxy saw. */
  const viaProxy = (forged: string, real: string) => ({ "x-forwarded-for": `${forged}, ${real}` });

  const contact = (headers: Record<string, string>, index: number) =>
    fetch(`${server.url}/api/send-contact-email`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({
        name: "Ada",
        email: `ada${index}@example.com`,
        subject: "Hi",
        message: "Hello",
      }),
    });

  it("counts contact messages against the address the proxy saw, not a forged X-Forwarded-For", async () => {
    const statuses = [];
    for (let index = 0; index < 6; index++)
      statuses.push((await contact(viaProxy(`198.51.100.${index + 1}`, "203.0.113.7"), index)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // Another real client is not held back by the first one's limit.
    expect((await contact(viaProxy("198.51.100.1", "203.0.113.8"), 99)).status).toBe(200);
  });

  it("counts an IPv6 client by its /64, so walking its own block does not escape the limit", async () => {
    const statuses = [];
    for (let index = 0; index < 6; index++)
      statuses.push(
        (await contact(viaProxy("198.51.100.9", `2001:db8:5:6::${index + 1}`), 200 + index)).status,
      );
    expect(statuses.at(-1)).toBe(429);
  });

  it("counts sign-in attempts against the address the proxy saw, not a forged X-Forwarded-For", async () => {
    const statuses = [];
    for (let index = 0; index < 11; index++) {
      const response = await fetch(`${server.url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...viaProxy(`198.51.100.${index + 1}`, "203.0.113.20"),
        },
        body: JSON.stringify({ email: `nobody${index}@example.com`, password: "wrong password 123" }),
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});
