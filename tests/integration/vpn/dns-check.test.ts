// /check's DNS test (issue 22, decision 091): GET /api/check/dns answers whether a node's resolver
// reported a per-visit name; only a node's token can report one, and only in its shape.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dnsChecks } from "#server/db/schema/index.ts";
import { purgeStale } from "#server/domain/ops/housekeeping.ts";
import { DNS_CHECK_LIMIT, DNS_CHECK_RETENTION_MS, dnsCheckResult } from "#server/domain/vpn/dns-checks.ts";
import { rotateNodeToken } from "#server/domain/vpn/servers.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { buy, signedInCustomer } from "../../support/account.ts";
import { databaseKinds } from "../../support/database.ts";
import { addTestVpnServer } from "../../support/vpn.ts";
import { createAccount, STAFF_EMAIL } from "../../support/staff.ts";

const nonce = (n: number) => `${"0123456789abcdef".repeat(2)}${String(n).padStart(4, "0")}`;

describe.each(databaseKinds)("the DNS check on %s", (kind) => {
  let app: TestApp;
  let node: { token: string; publicKey: string; name: string };
  beforeAll(async () => {
    app = await createTestApp({ kind });
    const server = await addTestVpnServer(app.services.db, { name: "ng-dns-check", octet: 60 });
    node = {
      token: (await rotateNodeToken(app.services.db, server.name))!.nodeToken,
      publicKey: server.publicKey!,
      name: server.name,
    };
  });
  afterAll(async () => {
    await app?.close();
  });

  const ask = async (query: string, clientIp = "198.51.100.1") => {
    const response = await app.request(`/api/check/dns${query}`, { clientIp });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, unknown>,
    };
  };
  const report = (dnsChecks: unknown, authorization?: string) =>
    app.request("/api/nodes/status", {
      json: { publicKey: node.publicKey, dnsChecks },
      headers: authorization ? { authorization } : {},
    });
  const stored = async (value: string) =>
    app.services.db.select().from(dnsChecks).where(eq(dnsChecks.nonce, value));

  it("answers viaNode false for a name no node reported, and never from a cache", async () => {
    const answer = await ask(`?nonce=${nonce(1)}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ viaNode: false });
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });

  it("answers viaNode true, with the server, once the node's resolver reported the name", async () => {
    const reported = await report([nonce(2), nonce(2)], `Bearer ${node.token}`);
    expect(reported.status).toBe(200);
    expect((await ask(`?nonce=${nonce(2)}`)).body).toEqual({ viaNode: true, server: "ng-dns-check" });
    // Another visitor's name is still unseen.
    expect((await ask(`?nonce=${nonce(3)}`)).body).toEqual({ viaNode: false });
  });

  it("refuses a name that is not a per-visit name with 400 JSON", async () => {
    for (const query of [
      "",
      "?nonce=",
      "?nonce=short",
      `?nonce=${nonce(4).toUpperCase()}`,
      `?nonce=${nonce(4)}.dns-check.internal`,
      `?nonce=${"a".repeat(65)}`,
      `?nonce=${nonce(4)}&extra=1`,
      `?nonce=${nonce(4)}%00`,
    ]) {
      const answer = await ask(query);
      expect(answer.status, query).toBe(400);
      expect(answer.body).toMatchObject({ error: "Invalid request", message: expect.any(String) });
    }
    const post = await app.request(`/api/check/dns?nonce=${nonce(4)}`, { method: "POST" });
    expect(post.status).toBe(405);
  });

  it("takes reports only from a node's token, and only names in their shape", async () => {
    const staff = await createAccount(app, STAFF_EMAIL);
    await buy(app, "unlock", "dns-buyer@example.com");
    const customer = await signedInCustomer(app, "dns-buyer@example.com");
    for (const [who, headers] of [
      ["anonymous", {}],
      ["a wrong token", { authorization: "Bearer not-a-node-token-0000000000" }],
      ["a staff session", { cookie: staff.cookie }],
      ["a customer session", { cookie: customer }],
    ] as const) {
      const response = await app.request("/api/nodes/status", {
        json: { publicKey: node.publicKey, dnsChecks: [nonce(5)] },
        headers,
      });
      expect(response.status, who).toBe(401);
      expect(await stored(nonce(5)), who).toEqual([]);
    }
    const bad = await report([nonce(6), "Not-A-Nonce"], `Bearer ${node.token}`);
    expect(bad.status).toBe(400);
    expect(await stored(nonce(6))).toEqual([]);
    expect((await ask(`?nonce=${nonce(5)}`)).body).toEqual({ viaNode: false });
  });

  it("forgets a name after 10 minutes: the answer turns false and housekeeping removes it", async () => {
    await report([nonce(7)], `Bearer ${node.token}`);
    const [row] = await stored(nonce(7));
    const later = new Date(row!.seenAt.getTime() + DNS_CHECK_RETENTION_MS + 1000);
    expect(await dnsCheckResult(app.services.db, nonce(7), later)).toEqual({ viaNode: false });
    expect((await purgeStale(app.services.db, later)).removedDnsChecks).toBeGreaterThanOrEqual(1);
    expect(await stored(nonce(7))).toEqual([]);
  });

  it("limits how often one visitor asks", async () => {
    const answers = [];
    for (let index = 0; index <= DNS_CHECK_LIMIT.limit; index += 1)
      answers.push((await ask(`?nonce=${nonce(8)}`, "198.51.100.99")).status);
    expect(answers.slice(0, DNS_CHECK_LIMIT.limit).every((status) => status === 200)).toBe(true);
    const refused = await ask(`?nonce=${nonce(8)}`, "198.51.100.99");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await ask(`?nonce=${nonce(8)}`, "198.51.100.100")).status).toBe(200);
  });
});
